import { deleteRole } from '@sched/db/queries/roles';
import { NotFoundError } from '@sched/kit/errors';
import { presentRole, roleOutput } from '../../presenters/role.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireManageable } from '../../services/permissions.ts';
import { requireCustomRole, roleParams } from './role-input.ts';

export const deleteRoleRoute = defineRoute({
  method: 'DELETE',
  path: '/organizations/:orgId/roles/:roleId',
  summary: 'Deletes a custom role; memberships holding it fall back to their role (system roles: 403)',
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.delete' },
  params: roleParams,
  response: { status: 200, description: 'The deleted role', schema: roleOutput },
  handler: async ({ deps, params, access, caller, ctx }) => {
    const role = await requireCustomRole(deps, params.orgId, params.roleId);
    requireManageable(access!, role);
    const audit = auditContextOf(caller, ctx);
    if (!(await deleteRole(deps.stores.db.knex, deps.stores.tokenStore, params.orgId, params.roleId, audit)))
      throw new NotFoundError('Role not found');
    return { data: presentRole(role) };
  },
});
