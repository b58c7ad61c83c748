import { listMemberships } from '@sched/db/queries/memberships';
import { z } from 'zod';
import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { defineRoute } from '../../routing/route.ts';
import { pagination } from '../../routing/schemas.ts';
import { parentOf } from '../../services/memberships/context.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';

export const listMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'GET',
    path: family.path,
    summary: `Memberships of the ${family.parent} (skip/take, default 0/250)`,
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.read,
    access: access(family, family.readRole, family.permissions.list),
    params: family.params,
    query: pagination,
    response: { status: 200, description: 'Memberships', schema: z.array(membershipOutput) },
    handler: async ({ deps, query, access }) => ({
      data: (await listMemberships(deps.stores.db.knex, parentOf(access!), query)).map(presentMembership),
    }),
  }),
);
