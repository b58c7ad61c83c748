import { createRole } from '@sched/db/queries/roles';
import { z } from 'zod';
import { presentRole, roleOutput } from '../../presenters/role.ts';
import { defineRoute } from '../../routing/route.ts';
import { invalidateOrganization } from '../../services/invalidate.ts';
import { requireValidPermissions } from '../../services/permissions.ts';
import { color, description, orgParams, permissionList, roleName } from './role-input.ts';

export const createRoleRoute = defineRoute({
  method: 'POST',
  path: '/organizations/:orgId/roles',
  summary: 'Creates a custom role (PBAC) with optional permissions',
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.create' },
  params: orgParams,
  body: z.strictObject({ name: roleName, color, description, permissions: permissionList.optional() }),
  response: { status: 201, description: 'The role', schema: roleOutput },
  handler: async ({ deps, params, body }) => {
    const permissions = requireValidPermissions(body.permissions ?? []);
    const role = await createRole(deps.stores.db.knex, params.orgId, { ...body, permissions });
    await invalidateOrganization(deps, params.orgId);
    return { status: 201, data: presentRole(role) };
  },
});
