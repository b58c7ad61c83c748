import type { AuditContext } from '@sched/db/queries/audit-log';
import {
  deleteMembership,
  deleteOrganizationMembership,
  type RemovalContext,
} from '@sched/db/queries/membership-changes';
import { findMembership, type Membership } from '@sched/db/queries/memberships';
import { NotFoundError } from '@sched/kit/errors';
import {
  checkOrgMembershipRemoval,
  checkOrgRemovalOfTeamRoles,
  checkTeamMembershipRemoval,
  effectiveOrgRole,
  firstRefusal,
} from '@sched/policy/membership-rules';
import type { Permission } from '@sched/policy/permissions';
import type { Runtime } from '@sched/runtime/runtime';
import type { AccessContext, UserCaller } from '../../routing/caller.ts';
import { checkAccess, checkLockedAccess, enforce, parentOf, teamInOrganization } from './context.ts';
import { MEMBERSHIP_NOT_FOUND } from './read-cache.ts';

/**
 * DELETE. Any member may leave (delete their own membership) except an owner; removing someone
 * else needs ADMIN or the family's `*.remove` permission. Team memberships follow the team-owner
 * removal rules (only a team owner removes another owner, org admins and owners may, nobody removes
 * their own owner membership) and the rank rule; organization memberships the rank rule and "an
 * owner does not remove themselves". Removing an organization membership also removes the user's
 * memberships of its teams, so an owner of one of them cannot leave it either, and only an
 * organization admin or owner removes a member who is an owner or admin of one of them.
 */
export async function removeMembership(
  deps: Runtime,
  access: AccessContext,
  caller: UserCaller,
  membershipId: number,
  removePermission: Permission,
  audit: AuditContext,
): Promise<Membership> {
  const knex = deps.stores.db.knex;
  const parent = parentOf(access);
  // Access before existence: someone who may remove nobody but themselves gets the same 403 for
  // another member's membership as for an id that names none, so ids tell them nothing.
  const found = await findMembership(knex, parent, membershipId);
  const self = found !== null && found.userId === caller.userId;
  const removing = self
    ? undefined
    : { ...access.requirement, minimumRole: 'ADMIN' as const, permission: removePermission };
  if (removing) enforce(checkAccess(access, removing));
  if (!found) throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
  const target = found;
  // Leaving (one's own membership) and removing someone are told apart in the log.
  const audited = { audit, action: self ? 'membership.left' : 'membership.removed' };
  // The rules judge the memberships as the delete locks them, so a role changed meanwhile (the
  // target's, or one of their team roles) is judged as it is: refused, RuleRefusedError (403). The
  // remover's own memberships are locked and judged too, not taken from the access check: two
  // owners removing each other at once would otherwise both succeed and leave no owner. So is what
  // the route and `removing` ask, on those memberships, their custom roles and the organization's
  // PBAC switch as locked: a remover demoted, or whose permission is taken, meanwhile is refused
  // with the 403 the same request gets afterwards.
  const locks = { removerUserId: caller.userId };
  const mayRemove = (locked: RemovalContext) =>
    checkLockedAccess(access, caller, { mine: locked.remover, organization: locked.organization }, removing)
      .verdict;
  let removed: boolean;
  if (parent.kind === 'organization') {
    removed = await deleteOrganizationMembership(
      knex,
      deps.stores.tokenStore,
      parent.id,
      membershipId,
      audited,
      ({ membership, teamMemberships, ...locked }) => {
        const actorOrgRole = effectiveOrgRole(locked.remover.organization);
        return firstRefusal(
          mayRemove(locked),
          checkOrgMembershipRemoval({ actorOrgRole, targetRole: membership.role, self }),
          // Removing an organization membership takes its teams' memberships along, so the team
          // rules hold for those too: nobody takes along a team role they could not remove there.
          checkOrgRemovalOfTeamRoles({ actorOrgRole, targetTeamMemberships: teamMemberships, self }),
        );
      },
      locks,
    );
  } else {
    removed = await deleteMembership(
      knex,
      deps.stores.tokenStore,
      parent,
      membershipId,
      audited,
      ({ membership, ...locked }) =>
        firstRefusal(
          mayRemove(locked),
          checkTeamMembershipRemoval({
            actorTeamRole: locked.remover.team?.accepted ? locked.remover.team.role : null,
            actorOrgRole: teamInOrganization(access) ? effectiveOrgRole(locked.remover.organization) : null,
            targetRole: membership.role,
            self,
          }),
        ),
      locks,
    );
  }
  if (!removed) throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
  return target;
}
