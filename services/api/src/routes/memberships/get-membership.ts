import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { defineRoute } from '../../routing/route.ts';
import { getMembershipCached, membershipVersionKeys } from '../../services/memberships.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';

export const getMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'GET',
    path: `${family.path}/:membershipId`,
    summary: `One membership of the ${family.parent}`,
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.read,
    access: access(family, 'MEMBER', family.permissions.list),
    params: family.itemParams,
    response: { status: 200, description: 'The membership', schema: membershipOutput },
    versionKeys: membershipVersionKeys,
    handler: async ({ deps, params, access, versions, cache }) => ({
      data: presentMembership(await getMembershipCached(deps, access!, params.membershipId, versions, cache)),
    }),
  }),
);
