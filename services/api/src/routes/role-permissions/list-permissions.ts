import { permissionsOutput } from '../../presenters/role.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireRole, roleParams } from '../roles/role-input.ts';

export const listPermissionsRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/roles/:roleId/permissions',
  summary: "The role's permissions",
  tags: ['Role permissions'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'MEMBER', permission: 'role.read' },
  params: roleParams,
  response: { status: 200, description: "The role's permissions", schema: permissionsOutput },
  handler: async ({ deps, params }) => ({
    data: (await requireRole(deps, params.orgId, params.roleId)).permissions,
  }),
});
