import { removeRolePermissions } from '@sched/db/queries/roles';
import { z } from 'zod';
import { permissionsOutput } from '../../presenters/role.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { requireManageable, requireValidPermissions } from '../../services/permissions.ts';
import { requireCustomRole } from '../roles/role-input.ts';

export const removePermissionRoute = defineRoute({
  method: 'DELETE',
  path: '/organizations/:orgId/roles/:roleId/permissions/:permission',
  summary: 'Removes one permission from a custom role; returns what is left',
  tags: ['Role permissions'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.update' },
  params: z.strictObject({
    orgId: idParam,
    roleId: z.string().min(1).max(100),
    permission: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: "e.g. eventType.read ('*' URL-encoded as %2A)" }),
  }),
  response: { status: 200, description: "The role's remaining permissions", schema: permissionsOutput },
  handler: async ({ deps, params, access, caller, ctx }) => {
    const permissions = requireValidPermissions([params.permission], () => 'params.permission');
    requireManageable(access!, await requireCustomRole(deps, params.orgId, params.roleId));
    const left = await removeRolePermissions(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      params.roleId,
      permissions,
      auditContextOf(caller, ctx),
    );
    return { data: left };
  },
});
