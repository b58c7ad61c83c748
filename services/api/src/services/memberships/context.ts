import type { MembershipFact } from '@sched/db/queries/access-facts';
import type { LockedOrganization } from '@sched/db/queries/membership-changes';
import type { MembershipParent } from '@sched/db/queries/memberships';
import { ForbiddenError, InsufficientScopeError } from '@sched/kit/errors';
import { type AccessRequirement, decideAccess, type MembershipFacts } from '@sched/policy/access';
import { effectiveOrgRole, effectiveTeamRole, type RuleResult } from '@sched/policy/membership-rules';
import type { Permission } from '@sched/policy/permissions';
import type { Role } from '@sched/policy/roles';
import { checkTokenScopes, type Scope } from '@sched/policy/scopes';
import type { AccessContext, UserCaller } from '../../routing/caller.ts';

/**
 * What every membership operation derives from the route's access context: the organization or
 * team it is about, and the caller's rank there.
 */

export const teamInOrganization = (access: AccessContext): boolean =>
  access.team !== null &&
  access.team.organizationId !== null &&
  access.team.organizationId === access.organization?.id;

/** The organization or team the route is about. */
export function parentOf(access: AccessContext): MembershipParent {
  if (access.requirement.level === 'organization')
    return { kind: 'organization', id: access.organization!.id };
  return { kind: 'team', id: access.team!.id };
}

/** The caller's rank for rule checks: org role, or the higher of team role and (org team) org role. */
export function actorRoleOf(access: AccessContext): Role | null {
  return actorRoleFrom(access, { organization: access.orgMembership, team: access.teamMembership });
}

/** The same rank from the caller's memberships as a write locked them (see actorRoleOf). */
export function actorRoleFrom(
  access: AccessContext,
  mine: { organization: MembershipFacts | null; team: MembershipFacts | null },
): Role | null {
  if (access.requirement.level === 'organization') return effectiveOrgRole(mine.organization);
  return effectiveTeamRole({
    teamMembership: mine.team,
    orgMembership: mine.organization,
    teamInOrganization: teamInOrganization(access),
  });
}

export function enforce(result: RuleResult): void {
  if (!result.allowed) throw new ForbiddenError(result.reason);
}

/**
 * For operations a member may do on their own membership (leaving) but that need more on someone
 * else's: the route let any member in; this asks again with the stricter requirement.
 */
export function requireAccess(access: AccessContext, minimumRole: Role, permission: Permission): void {
  enforce(checkAccess(access, { ...access.requirement, minimumRole, permission }));
}

/**
 * `decideAccess` on the memberships of `access`, as a RuleResult; `serviceAdmin` only words a
 * denial, as the route's own check words it.
 */
export function checkAccess(
  access: AccessContext,
  requirement: AccessRequirement,
  serviceAdmin = false,
): RuleResult {
  const decision = decideAccess({
    requirement,
    orgMembership: access.orgMembership,
    teamMembership: access.teamMembership,
    teamInOrganization: teamInOrganization(access),
    pbacEnabled: access.organization?.pbacEnabled ?? false,
    serviceAdmin,
  });
  return decision.allowed ? { allowed: true } : { allowed: false, reason: decision.reason };
}

/**
 * `access` with the caller's memberships (and their custom roles' permissions) and the
 * organization's PBAC switch as a write locked them, to judge on them what the request was judged
 * on (its `decision` stays the request's).
 */
export function withLockedMemberships(
  access: AccessContext,
  mine: { organization: MembershipFact | null; team: MembershipFact | null },
  organization: LockedOrganization | null,
): AccessContext {
  return {
    ...access,
    organization:
      access.organization !== null && organization?.id === access.organization.id
        ? { ...access.organization, pbacEnabled: organization.pbacEnabled }
        : access.organization,
    orgMembership: mine.organization,
    teamMembership: access.requirement.level === 'team' ? mine.team : null,
  };
}

/**
 * The route's own access question asked again on what a write locked (withLockedMemberships), then
 * `stricter`, the one the service asks of a caller acting on someone else's membership, as the
 * request asked them; `access` is the locked view, for the rules judged on it next.
 */
export function checkLockedAccess(
  access: AccessContext,
  caller: UserCaller,
  locked: {
    mine: { organization: MembershipFact | null; team: MembershipFact | null };
    organization: LockedOrganization | null;
  },
  stricter?: AccessRequirement,
): { access: AccessContext; verdict: RuleResult } {
  const view = withLockedMemberships(access, locked.mine, locked.organization);
  const route = checkAccess(view, access.requirement, caller.serviceAdmin);
  const verdict = route.allowed && stricter !== undefined ? checkAccess(view, stricter) : route;
  return { access: view, verdict };
}

/** What reading a family's memberships needs (its GET routes): scope, role and PBAC permission. */
export interface MembershipReadRequirement {
  scope: Scope;
  role: Role;
  permission: Permission;
}

/**
 * For a write whose answer would show a membership without changing anything: that answer is a
 * read, so it needs what GET needs (the token's read scope, and the read role or permission).
 */
export function requireReadAccess(
  caller: UserCaller,
  access: AccessContext,
  read: MembershipReadRequirement,
): void {
  if (caller.kind === 'oauth') {
    const check = checkTokenScopes({
      requiredScopes: read.scope,
      grantedScopes: caller.scopes,
      legacy: caller.legacy,
    });
    if (!check.allowed) throw new InsufficientScopeError(check.message, check.missing);
  }
  requireAccess(access, read.role, read.permission);
}
