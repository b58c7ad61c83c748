import { presentRole, roleOutput } from '../../presenters/role.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireRole, roleParams } from './role-input.ts';

export const getRoleRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/roles/:roleId',
  summary: 'One role (system, or a custom role of this organization; another organization’s is 404)',
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'MEMBER', permission: 'role.read' },
  params: roleParams,
  response: { status: 200, description: 'The role', schema: roleOutput },
  handler: async ({ deps, params }) => ({
    data: presentRole(await requireRole(deps, params.orgId, params.roleId)),
  }),
});
