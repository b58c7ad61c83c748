import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import type { Membership } from '@sched/db/queries/memberships';
import { presentedOnce } from '../../presenters/shared-answers.ts';
import { defineRoute } from '../../routing/route.ts';
import { getMembershipCached, membershipVersionKeys } from '../../services/memberships/read-cache.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';

// Hits of the memberships cache return the same row object: presented and serialized once.
const presented = presentedOnce(presentMembership);
const present = (membership: Membership) => ({ data: presented(membership) });

export const getMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'GET',
    path: `${family.path}/:membershipId`,
    summary: `One membership of the ${family.parent}`,
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.read,
    access: access(family, family.readRole, family.permissions.list),
    params: family.itemParams,
    response: { status: 200, description: 'The membership', schema: membershipOutput },
    versionKeys: membershipVersionKeys,
    handler: ({ deps, params, access, versions, cache }) => {
      const membership = getMembershipCached(deps, access!, params.membershipId, versions, cache);
      return membership instanceof Promise ? membership.then(present) : present(membership);
    },
  }),
);
