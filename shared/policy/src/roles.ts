// Membership roles of organizations and teams: owner > admin > member.

export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_RANK: Readonly<Record<Role, number>> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** Accepts any case ("owner", "Admin"); no trimming. Returns the uppercase form or null. */
export function parseRole(value: unknown): Role | null {
  if (typeof value !== 'string') return null;
  const upper = value.toUpperCase();
  return isRole(upper) ? upper : null;
}

/** Rank of a role; 0 for "no role" so that any real role outranks it. */
export const roleRank = (role: Role | null | undefined): number => (role ? ROLE_RANK[role] : 0);

/** True when `actual` is `required` or higher. No role never passes. */
export const roleAtLeast = (actual: Role | null | undefined, required: Role): boolean =>
  roleRank(actual) >= ROLE_RANK[required];

/** The higher of two roles (null when both are absent). */
export function higherRole(a: Role | null | undefined, b: Role | null | undefined): Role | null {
  return roleRank(a) >= roleRank(b) ? (a ?? null) : (b ?? null);
}
