import { removeRolePermissions } from '@sched/db/queries/roles';
import { z } from 'zod';
import { permissionsOutput } from '../../presenters/role.ts';
import { defineRoute } from '../../routing/route.ts';
import { invalidateOrganization } from '../../services/invalidate.ts';
import { requireValidPermissions } from '../../services/permissions.ts';
import { permissionList, requireCustomRole, roleParams } from '../roles/role-input.ts';

export const removePermissionsRoute = defineRoute({
  method: 'DELETE',
  path: '/organizations/:orgId/roles/:roleId/permissions',
  summary: 'Removes several permissions from a custom role (body {permissions}); returns what is left',
  tags: ['Role permissions'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.update' },
  params: roleParams,
  body: z.strictObject({ permissions: permissionList.min(1) }),
  response: { status: 200, description: "The role's remaining permissions", schema: permissionsOutput },
  handler: async ({ deps, params, body }) => {
    const permissions = requireValidPermissions(body.permissions);
    await requireCustomRole(deps, params.orgId, params.roleId);
    const left = await removeRolePermissions(deps.stores.db.knex, params.roleId, permissions);
    await invalidateOrganization(deps, params.orgId);
    return { data: left };
  },
});
