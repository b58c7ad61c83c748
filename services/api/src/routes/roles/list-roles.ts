import { listRoles } from '@sched/db/queries/roles';
import { z } from 'zod';
import { presentRole, roleOutput } from '../../presenters/role.ts';
import { defineRoute } from '../../routing/route.ts';
import { pagination } from '../../routing/schemas.ts';
import { orgParams } from './role-input.ts';

export const listRolesRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/roles',
  summary: "The system roles (owner_role, admin_role, member_role) and the organization's custom roles",
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'MEMBER', permission: 'role.read' },
  params: orgParams,
  query: pagination,
  response: { status: 200, description: 'Roles', schema: z.array(roleOutput) },
  handler: async ({ deps, params, query }) => ({
    data: (await listRoles(deps.stores.db.knex, params.orgId, query)).map(presentRole),
  }),
});
