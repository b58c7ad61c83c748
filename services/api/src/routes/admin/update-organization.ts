import { updateOrganization } from '@sched/db/queries/organizations';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { organizationOutput, presentOrganization } from '../../presenters/team.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { named } from '../../openapi/named.ts';

export const updateOrganizationRoute = defineRoute({
  method: 'PATCH',
  path: '/admin/organizations/:orgId',
  summary: 'Turns PBAC on or off for the organization (effective on the next request everywhere)',
  tags: ['Admin'],
  auth: 'admin',
  params: z.strictObject({ orgId: idParam }),
  body: named('UpdateOrganizationRequest', z.strictObject({ pbacEnabled: z.boolean() }), {
    pbacEnabled: true,
  }),
  response: { status: 200, description: 'The organization', schema: organizationOutput },
  handler: async ({ deps, params, body, caller, ctx }) => {
    const organization = await updateOrganization(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      params.orgId,
      body,
      auditContextOf(caller, ctx),
    );
    if (!organization) throw new NotFoundError('Organization not found');
    return { data: presentOrganization(organization) };
  },
});
