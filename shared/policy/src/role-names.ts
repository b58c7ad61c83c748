// Custom role names: never the name of a system role or of a membership role.

/** Compared case-insensitively, after trimming. */
export const RESERVED_ROLE_NAMES = [
  'owner',
  'admin',
  'member',
  'owner_role',
  'admin_role',
  'member_role',
] as const;

export const isReservedRoleName = (name: string): boolean =>
  (RESERVED_ROLE_NAMES as readonly string[]).includes(name.trim().toLowerCase());

export const reservedRoleNameMessage = `may not be the name of a system or membership role (${RESERVED_ROLE_NAMES.join(', ')}, in any case)`;
