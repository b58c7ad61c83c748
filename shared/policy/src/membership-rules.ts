// Role-assignment and member-removal rules (who may give which role, who may remove a team owner).
// Violations are 403s. These run AFTER `decideAccess`: a PBAC permission opens the endpoint but
// never lifts these rules.
import type { MembershipFacts } from './access.ts';
import { higherRole, ROLE_RANK, type Role, roleAtLeast, roleRank } from './roles.ts';

export type RuleResult = { allowed: true } | { allowed: false; reason: string };

const ok: RuleResult = { allowed: true };
const refuse = (reason: string): RuleResult => ({ allowed: false, reason });

/** The first of the results that refuses, or allowed when none does. */
export const firstRefusal = (...results: RuleResult[]): RuleResult =>
  results.find((result) => !result.allowed) ?? ok;

/** The caller's role in an organization: only an accepted membership counts. */
export const effectiveOrgRole = (org: MembershipFacts | null | undefined): Role | null =>
  org?.accepted ? org.role : null;

/**
 * The caller's rank on a team: the higher of their accepted team role and, for a team of the
 * organization, their accepted organization role (org OWNER ranks as team OWNER, ADMIN as ADMIN,
 * MEMBER as MEMBER). Used only for rank comparisons; endpoint access is `decideAccess`.
 */
export function effectiveTeamRole(input: {
  teamMembership?: MembershipFacts | null;
  orgMembership?: MembershipFacts | null;
  teamInOrganization: boolean;
}): Role | null {
  const orgRole = input.teamInOrganization ? effectiveOrgRole(input.orgMembership) : null;
  return higherRole(input.teamMembership?.accepted ? input.teamMembership.role : null, orgRole);
}

export interface RoleAssignmentInput {
  /** Caller's effective role in the organization / team (see effective*Role). */
  actorRole: Role | null;
  /** The membership being created or changed is the caller's own. */
  self: boolean;
  /** Target's role now; null when creating a membership or inviting by email. */
  currentRole: Role | null;
  /** Role being set; omit (or null) for a PATCH that does not change the role. */
  newRole?: Role | null;
}

/** Create, invite by email and PATCH of organization and team memberships. */
export function checkRoleAssignment(input: RoleAssignmentInput): RuleResult {
  const { actorRole, self, currentRole, newRole } = input;
  if (actorRole === null) return refuse('You have no role here to assign roles with');
  const actorIsAdmin = actorRole === 'ADMIN';
  if (currentRole !== null && roleRank(currentRole) > roleRank(actorRole)) {
    if (actorIsAdmin && newRole) return refuse('An admin cannot change the role of an existing owner');
    return refuse(
      `You cannot modify a member whose role (${currentRole}) is higher than your own (${actorRole})`,
    );
  }
  if (newRole && !roleAtLeast(actorRole, newRole)) {
    if (actorIsAdmin && self) return refuse('An admin cannot promote themselves to owner');
    if (actorIsAdmin) return refuse('An admin cannot assign the owner role');
    return refuse(`You cannot assign a role (${newRole}) higher than your own (${actorRole})`);
  }
  return ok;
}

export const TEAM_OWNER_REMOVAL_REFUSAL =
  'Only a team owner or an organization admin or owner can remove a team owner';

export interface TeamMembershipRemovalInput {
  /** Caller's accepted team role, if any. */
  actorTeamRole: Role | null;
  /** Caller's accepted role in the organization owning the team; null for teams outside one. */
  actorOrgRole: Role | null;
  /** Role of the membership being deleted. */
  targetRole: Role;
  self: boolean;
}

/**
 * DELETE of a team membership. Owner targets: a team owner never removes their own membership
 * (even if also org admin/owner: the specific rule wins); org admin/owner may remove any other
 * owner; otherwise only a team owner may (a team admin may not, even with team.remove).
 * Non-owner targets: the general rank rule, so a PBAC-only member cannot remove an admin.
 */
export function checkTeamMembershipRemoval(input: TeamMembershipRemovalInput): RuleResult {
  const { actorTeamRole, actorOrgRole, targetRole, self } = input;
  if (targetRole === 'OWNER') {
    if (self) return refuse('A team owner cannot remove their own membership');
    if (roleAtLeast(actorOrgRole, 'ADMIN') || actorTeamRole === 'OWNER') return ok;
    return refuse(TEAM_OWNER_REMOVAL_REFUSAL);
  }
  const actor = higherRole(actorTeamRole, actorOrgRole);
  if (roleRank(targetRole) > roleRank(actor)) {
    return refuse(
      `You cannot remove a member whose role (${targetRole}) is higher than your own (${actor ?? 'none'})`,
    );
  }
  return ok;
}

export const TEAM_OWNER_LEAVING =
  "A team owner cannot remove their own membership: hand the ownership of this organization's teams on before leaving it";

export const TEAM_ADMIN_REMOVAL_REFUSAL =
  'Only an organization admin or owner can remove from the organization a member who is an admin of one of its teams';

/**
 * DELETE of an organization membership, for the memberships of the organization's teams it takes
 * along (docs/decisions.md): it must not do what the team rules refuse, judged by the remover's
 * organization role. Leaving: refused while the member owns one of the teams (a team owner never
 * removes their own membership); a pending team invitation does not hold them back, as its invitee
 * may always decline it. Removing someone: a member who holds an owner or admin membership of one
 * of the teams, accepted or still an invitation (the team rules judge a membership by its role
 * either way), needs an organization admin or owner (a holder of `organization.remove` alone is
 * outranked there); they may instead be removed from the team first, where team roles count.
 */
export function checkOrgRemovalOfTeamRoles(input: {
  actorOrgRole: Role | null;
  /** The target's memberships and invitations of the organization's teams. */
  targetTeamMemberships: ReadonlyArray<{ role: Role; accepted: boolean }>;
  self: boolean;
}): RuleResult {
  const { actorOrgRole, targetTeamMemberships, self } = input;
  if (self) {
    const owns = targetTeamMemberships.some((team) => team.accepted && team.role === 'OWNER');
    return owns ? refuse(TEAM_OWNER_LEAVING) : ok;
  }
  const targetTeamRole = targetTeamMemberships.reduce<Role | null>(
    (highest, team) => higherRole(highest, team.role),
    null,
  );
  if (roleRank(targetTeamRole) <= ROLE_RANK.MEMBER || roleAtLeast(actorOrgRole, 'ADMIN')) return ok;
  return refuse(targetTeamRole === 'OWNER' ? TEAM_OWNER_REMOVAL_REFUSAL : TEAM_ADMIN_REMOVAL_REFUSAL);
}

/**
 * DELETE of an organization membership (spec silent): the rank rule of "Roles" 1, and, mirroring
 * the team rule, an owner cannot remove their own organization membership.
 */
export function checkOrgMembershipRemoval(input: {
  actorOrgRole: Role | null;
  targetRole: Role;
  self: boolean;
}): RuleResult {
  const { actorOrgRole, targetRole, self } = input;
  if (self && targetRole === 'OWNER')
    return refuse('An organization owner cannot remove their own membership');
  if (roleRank(targetRole) > roleRank(actorOrgRole)) {
    return refuse(
      `You cannot remove a member whose role (${targetRole}) is higher than your own (${actorOrgRole ?? 'none'})`,
    );
  }
  return ok;
}
