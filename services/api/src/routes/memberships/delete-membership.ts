import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { removeMembership } from '../../services/memberships/remove.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';

export const deleteMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'DELETE',
    path: `${family.path}/:membershipId`,
    summary: `Removes a membership of the ${family.parent}`,
    description:
      'A member may leave: DELETE of their own membership (an owner cannot; another owner or an organization ' +
      'admin removes them, or they hand ownership on first). Removing someone else needs ADMIN or the ' +
      `${family.permissions.remove} permission (without it, any id but one's own membership is 403, whether or ` +
      'not it names a membership). ' +
      (family.level === 'team'
        ? 'Removing a team owner: only a team owner may remove another owner (a team admin may not, even ' +
          'with team.remove); organization admins and owners may remove any team owner; nobody removes ' +
          'their own owner membership.'
        : 'Nobody removes a member ranked above them; an owner does not remove themselves. Leaving the ' +
          "organization also removes the user's memberships of its teams (so an owner of one of them " +
          'cannot leave, and only an organization admin or owner removes an owner or admin of one, or ' +
          'someone invited as one: ' +
          '403) and, when it was ' +
          'their last organization, their booking limits (only members of an organization may read ' +
          'or clear them).'),
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.write,
    access: access(family, 'ADMIN', family.permissions.remove),
    ownMembershipRole: 'MEMBER',
    params: family.itemParams,
    response: { status: 200, description: 'The removed membership', schema: membershipOutput },
    handler: async ({ caller, deps, params, access, ctx }) => ({
      data: presentMembership(
        await removeMembership(
          deps,
          access!,
          caller,
          params.membershipId,
          family.permissions.remove,
          auditContextOf(caller, ctx),
        ),
      ),
    }),
  }),
);
