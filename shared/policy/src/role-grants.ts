// PBAC cannot be escalated: a caller may put on a custom role, or assign through one, only
// permissions they hold themselves in that organization or team. Pure: the caller's memberships
// come in, the permissions they hold and those they lack come out.
import type { MembershipFacts } from './access.ts';
import { PERMISSIONS, permissionGrants } from './permissions.ts';
import { ORGANIZATION_MEMBER_HOLDS, SYSTEM_ROLE_OF, SYSTEM_ROLE_PERMISSIONS } from './system-roles.ts';

export interface HoldingsInput {
  /** Where the grant happens: an organization, or a team (for team memberships). */
  level: 'organization' | 'team';
  /** The caller's membership of the organization (team level: of the organization owning the team). */
  orgMembership?: MembershipFacts | null;
  /** The caller's membership of the team (team level only). */
  teamMembership?: MembershipFacts | null;
  /** Team level: the team belongs to the organization of `orgMembership` / `pbacEnabled`. */
  teamInOrganization?: boolean;
  /** PBAC switch of the organization: custom roles only count when it is on. */
  pbacEnabled: boolean;
}

/**
 * What one accepted membership holds: OWNER everything, else its system role's list (+ custom role).
 * An organization MEMBER holds only what that role opens organization-wide (ORGANIZATION_MEMBER_HOLDS).
 */
function holdingsOf(
  membership: MembershipFacts | null | undefined,
  pbac: boolean,
  of: 'organization' | 'team',
): readonly string[] {
  if (!membership?.accepted) return [];
  if (membership.role === 'OWNER') return ['*.*'];
  const system =
    of === 'organization' && membership.role === 'MEMBER'
      ? ORGANIZATION_MEMBER_HOLDS
      : SYSTEM_ROLE_PERMISSIONS[SYSTEM_ROLE_OF[membership.role]];
  return pbac ? [...system, ...(membership.permissions ?? [])] : system;
}

/**
 * The permission patterns the caller holds. Organization level: OWNER holds `*.*`; ADMIN the
 * admin_role list, MEMBER the part of member_role it holds organization-wide; plus, with PBAC on,
 * their custom role's. Team level: the organization's holdings (when the team is the organization's) plus the
 * team membership's, counted the same way (team OWNER holds all in that team; a team outside any
 * organization has no PBAC). Pending memberships hold nothing.
 */
export function heldPermissions(input: HoldingsInput): string[] {
  const teamLevel = input.level === 'team';
  const orgApplies = !teamLevel || input.teamInOrganization === true;
  const pbac = input.pbacEnabled && orgApplies;
  const held = [
    ...(orgApplies ? holdingsOf(input.orgMembership, pbac, 'organization') : []),
    ...(teamLevel ? holdingsOf(input.teamMembership, pbac, 'team') : []),
  ];
  return [...new Set(held)];
}

/**
 * Is `requested` held? A concrete permission when some held pattern covers it; a pattern
 * (`team.*`, `*.read`, `*.*`) only when every concrete permission it stands for is covered. An
 * invalid string is never held.
 */
export function holdsPermission(held: readonly string[], requested: string): boolean {
  const concrete = PERMISSIONS.filter((permission) => permissionGrants([requested], permission));
  return concrete.length > 0 && concrete.every((permission) => permissionGrants(held, permission));
}

/** The requested permissions that are not held, in request order, each once. */
export function permissionsNotHeld(held: readonly string[], requested: readonly string[]): string[] {
  return [...new Set(requested)].filter((permission) => !holdsPermission(held, permission));
}

/** The 403 text (fixed: clients and tests match it). */
export const grantRefusalMessage = (notHeld: readonly string[]): string =>
  `You cannot grant permissions you do not hold: ${notHeld.join(', ')}`;
