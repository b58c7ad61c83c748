import { updateRole } from '@sched/db/queries/roles';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { presentRole, roleOutput } from '../../presenters/role.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireManageable, requireValidPermissions } from '../../services/permissions.ts';
import {
  color,
  description,
  GRANT_RULE,
  permissionList,
  requireCustomRole,
  roleName,
  roleParams,
} from './role-input.ts';
import { named } from '../../openapi/named.ts';

export const updateRoleRoute = defineRoute({
  method: 'PATCH',
  path: '/organizations/:orgId/roles/:roleId',
  summary: 'Renames, describes or replaces the permissions of a custom role (system roles: 403)',
  description:
    "`permissions`, when given, replaces all the role's permissions (an empty list removes them). " +
    'A new name follows the rules of creation (unique ignoring case, not a reserved name: 400). ' +
    GRANT_RULE,
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.update' },
  params: roleParams,
  body: named(
    'UpdateRoleRequest',
    z.strictObject({ name: roleName.optional(), color, description, permissions: permissionList.optional() }),
    { color: '#2563eb', permissions: ['eventType.read'] },
  ),
  response: { status: 200, description: 'The role', schema: roleOutput },
  handler: async ({ deps, params, body, access, caller, ctx }) => {
    const { permissions: requested, ...fields } = body;
    const permissions = requested === undefined ? undefined : requireValidPermissions(requested);
    const current = await requireCustomRole(deps, params.orgId, params.roleId);
    requireManageable(access!, current, permissions);
    const role = await updateRole(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      params.orgId,
      params.roleId,
      { ...fields, ...(permissions ? { permissions } : {}) },
      auditContextOf(caller, ctx),
    );
    if (!role) throw new NotFoundError('Role not found');
    return { data: presentRole(role) };
  },
});
