import { addRolePermissions } from '@sched/db/queries/roles';
import { z } from 'zod';
import { permissionsOutput } from '../../presenters/role.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireManageable, requireValidPermissions } from '../../services/permissions.ts';
import { GRANT_RULE, permissionList, requireCustomRole, roleParams } from '../roles/role-input.ts';
import { named } from '../../openapi/named.ts';

export const addPermissionsRoute = defineRoute({
  method: 'POST',
  path: '/organizations/:orgId/roles/:roleId/permissions',
  summary: 'Adds one or several permissions to a custom role; returns all its permissions',
  description: GRANT_RULE,
  tags: ['Role permissions'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.update' },
  params: roleParams,
  body: named('AddPermissionsRequest', z.strictObject({ permissions: permissionList.min(1) }), {
    permissions: ['eventType.read'],
  }),
  response: { status: 201, description: "The role's permissions", schema: permissionsOutput },
  handler: async ({ deps, params, body, access, caller, ctx }) => {
    const permissions = requireValidPermissions(body.permissions);
    const current = await requireCustomRole(deps, params.orgId, params.roleId);
    requireManageable(access!, current, permissions);
    const all = await addRolePermissions(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      params.roleId,
      permissions,
      auditContextOf(caller, ctx),
    );
    return { status: 201, data: all };
  },
});
