import type { AuditContext } from '@sched/db/queries/audit-log';
import {
  deleteMembership,
  deleteOrganizationMembership,
  findMembership,
  type Membership,
  ownsTeamOfOrganization,
} from '@sched/db/queries/memberships';
import { ForbiddenError, NotFoundError } from '@sched/kit/errors';
import {
  checkOrgMembershipRemoval,
  checkTeamMembershipRemoval,
  effectiveOrgRole,
  TEAM_OWNER_REMOVAL_REFUSAL,
} from '@sched/policy/membership-rules';
import { roleAtLeast } from '@sched/policy/roles';
import type { Permission } from '@sched/policy/permissions';
import type { Runtime } from '@sched/runtime/runtime';
import type { AccessContext, UserCaller } from '../../routing/caller.ts';
import { enforce, parentOf, requireAccess, teamInOrganization } from './context.ts';
import { MEMBERSHIP_NOT_FOUND } from './read-cache.ts';

export const TEAM_OWNER_LEAVING =
  "A team owner cannot remove their own membership: hand the ownership of this organization's teams on before leaving it";

/**
 * DELETE. Any member may leave (delete their own membership) except an owner; removing someone
 * else needs ADMIN or the family's `*.remove` permission. Team memberships follow the team-owner
 * removal rules (only a team owner removes another owner, org admins and owners may, nobody removes
 * their own owner membership) and the rank rule; organization memberships the rank rule and "an
 * owner does not remove themselves". Leaving an organization also removes the user's memberships
 * of its teams, so an owner of one of them cannot leave it either, and only an organization admin
 * or owner removes them.
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
  if (!self) requireAccess(access, 'ADMIN', removePermission);
  if (!found) throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
  const target = found;
  // Leaving (one's own membership) and removing someone are told apart in the log.
  const audited = { audit, action: self ? 'membership.left' : 'membership.removed' };
  if (parent.kind === 'organization') {
    enforce(
      checkOrgMembershipRemoval({
        actorOrgRole: effectiveOrgRole(access.orgMembership),
        targetRole: target.role,
        self,
      }),
    );
    // Removing an organization membership takes its teams' memberships along, so the team-owner
    // rules hold here too: a team owner does not leave that way, and only an organization admin or
    // owner (not organization.remove alone) removes a member who owns one of its teams.
    const actorIsOrgAdmin = roleAtLeast(effectiveOrgRole(access.orgMembership), 'ADMIN');
    if ((self || !actorIsOrgAdmin) && target.userId !== null) {
      if (await ownsTeamOfOrganization(knex, parent.id, target.userId)) {
        throw new ForbiddenError(self ? TEAM_OWNER_LEAVING : TEAM_OWNER_REMOVAL_REFUSAL);
      }
    }
    if (
      !(await deleteOrganizationMembership(knex, deps.stores.tokenStore, parent.id, membershipId, audited))
    ) {
      throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
    }
  } else {
    enforce(
      checkTeamMembershipRemoval({
        actorTeamRole: access.teamMembership?.accepted ? access.teamMembership.role : null,
        actorOrgRole: teamInOrganization(access) ? effectiveOrgRole(access.orgMembership) : null,
        targetRole: target.role,
        self,
      }),
    );
    if (!(await deleteMembership(knex, deps.stores.tokenStore, parent, membershipId, audited)))
      throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
  }
  return target;
}
