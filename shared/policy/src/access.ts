// Access decision for organization and team endpoints: membership roles and PBAC.
import { permissionGrants } from './permissions.ts';
import { type Role, roleAtLeast } from './roles.ts';

/** One membership of the caller, as loaded by the caller. */
export interface MembershipFacts {
  role: Role;
  /** Only accepted memberships count: a pending invitation grants nothing (role nor permissions). */
  accepted: boolean;
  /** Permissions of the custom role assigned to this membership, if any. */
  permissions?: readonly string[] | null;
}

export interface AccessRequirement {
  /** 'team' for /v2/teams/{teamId}/... and /v2/organizations/{orgId}/teams/{teamId}/... */
  level: 'organization' | 'team';
  minimumRole: Role;
  /** PBAC permission of the endpoint; null = PBAC cannot grant it, role check only. */
  permission: string | null;
}

export interface AccessInput {
  requirement: AccessRequirement;
  /** Membership in the organization (for team level: the organization owning the team). */
  orgMembership?: MembershipFacts | null;
  /** Membership in the team; ignored for organization-level endpoints. */
  teamMembership?: MembershipFacts | null;
  /** Team level: whether the team belongs to the organization of `orgMembership` / `pbacEnabled`. */
  teamInOrganization?: boolean;
  /** PBAC switch of the organization. Teams outside an organization have no PBAC. */
  pbacEnabled: boolean;
  /**
   * Service admins get NO implicit access here: they administer the service through the admin API,
   * not other people's organizations. Only used to explain a denial.
   */
  serviceAdmin?: boolean;
}

export type AccessVia = 'permission' | 'org_role' | 'team_role' | 'denied';

export interface AccessDecision {
  allowed: boolean;
  via: AccessVia;
  /** Why, for logs; for denials also fit for a 403 message. */
  reason: string;
}

const active = (m: MembershipFacts | null | undefined): MembershipFacts | null => (m?.accepted ? m : null);

const holds = (m: MembershipFacts | null, permission: string | null): boolean =>
  m !== null && permission !== null && permissionGrants(m.permissions ?? [], permission);

export function decideAccess(input: AccessInput): AccessDecision {
  const { requirement: req } = input;
  const teamLevel = req.level === 'team';
  // At team level the organization's membership and PBAC only matter for the organization's own teams.
  const orgApplies = !teamLevel || input.teamInOrganization === true;
  const org = orgApplies ? active(input.orgMembership) : null;
  const team = teamLevel ? active(input.teamMembership) : null;
  const pbac = input.pbacEnabled && orgApplies;

  if (pbac && holds(org, req.permission)) {
    return allow('permission', `permission ${req.permission} granted by the organization custom role`);
  }
  if (pbac && holds(team, req.permission)) {
    return allow('permission', `permission ${req.permission} granted by the team custom role`);
  }
  if (!teamLevel) {
    if (org && roleAtLeast(org.role, req.minimumRole)) {
      return allow('org_role', `organization role ${org.role} meets required ${req.minimumRole}`);
    }
  } else {
    if (org && roleAtLeast(org.role, 'ADMIN')) {
      return allow(
        'org_role',
        `organization role ${org.role} grants access to every team of the organization`,
      );
    }
    if (team && roleAtLeast(team.role, req.minimumRole)) {
      return allow('team_role', `team role ${team.role} meets required ${req.minimumRole}`);
    }
  }
  return { allowed: false, via: 'denied', reason: denialReason(input, pbac) };
}

const allow = (via: AccessVia, reason: string): AccessDecision => ({ allowed: true, via, reason });

function denialReason(input: AccessInput, pbac: boolean): string {
  const { level, minimumRole, permission } = input.requirement;
  const needs =
    level === 'team'
      ? `requires team role ${minimumRole} or organization role ADMIN`
      : `requires organization role ${minimumRole}`;
  const orPermission = pbac && permission !== null ? ` or permission ${permission}` : '';
  const own = level === 'team' ? input.teamMembership : input.orgMembership;
  let state: string;
  if (own?.accepted) state = `caller's ${level} role is ${own.role}`;
  else if (own) state = `the ${level} invitation is not accepted`;
  else if (input.serviceAdmin) state = `service administrators have no implicit ${level} access`;
  else state = `caller is not a member of the ${level}`;
  return `${needs}${orPermission}; ${state}`;
}
