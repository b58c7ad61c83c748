import { updateRole } from '@sched/db/queries/roles';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { presentRole, roleOutput } from '../../presenters/role.ts';
import { defineRoute } from '../../routing/route.ts';
import { invalidateOrganization } from '../../services/invalidate.ts';
import { color, description, requireCustomRole, roleName, roleParams } from './role-input.ts';

export const updateRoleRoute = defineRoute({
  method: 'PATCH',
  path: '/organizations/:orgId/roles/:roleId',
  summary: 'Renames or describes a custom role (system roles cannot be changed: 403)',
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.update' },
  params: roleParams,
  body: z.strictObject({ name: roleName.optional(), color, description }),
  response: { status: 200, description: 'The role', schema: roleOutput },
  handler: async ({ deps, params, body }) => {
    await requireCustomRole(deps, params.orgId, params.roleId);
    const role = await updateRole(deps.stores.db.knex, params.orgId, params.roleId, body);
    if (!role) throw new NotFoundError('Role not found');
    await invalidateOrganization(deps, params.orgId);
    return { data: presentRole(role) };
  },
});
