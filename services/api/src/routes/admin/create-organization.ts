import { createOrganization } from '@sched/db/queries/organizations';
import { findUserById } from '@sched/db/queries/users';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { organizationOutput, presentOrganization } from '../../presenters/team.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idValue, slug, text } from '../../routing/schemas.ts';
import { named } from '../../openapi/named.ts';

export const createOrganizationRoute = defineRoute({
  method: 'POST',
  path: '/admin/organizations',
  summary: 'Creates an organization with its owner (an accepted OWNER membership)',
  tags: ['Admin'],
  auth: 'admin',
  body: named(
    'CreateOrganizationRequest',
    z.strictObject({ name: text(200), slug, ownerUserId: idValue, pbacEnabled: z.boolean().optional() }),
    { name: 'Acme', slug: 'acme', ownerUserId: 5 },
  ),
  response: {
    status: 201,
    description: 'The organization',
    schema: organizationOutput,
    errors: { 409: 'An organization with this slug already exists' },
  },
  handler: async ({ deps, body, caller, ctx }) => {
    const knex = deps.stores.db.knex;
    if (!(await findUserById(knex, body.ownerUserId))) throw new NotFoundError('User not found');
    const organization = await createOrganization(
      knex,
      deps.stores.tokenStore,
      body,
      auditContextOf(caller, ctx),
    );
    return { status: 201, data: presentOrganization(organization) };
  },
});
