import { createRole } from '@sched/db/queries/roles';
import { z } from 'zod';
import { presentRole, roleOutput } from '../../presenters/role.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireGrantable, requireValidPermissions } from '../../services/permissions.ts';
import { color, description, GRANT_RULE, orgParams, permissionList, roleName } from './role-input.ts';
import { named } from '../../openapi/named.ts';

export const createRoleRoute = defineRoute({
  method: 'POST',
  path: '/organizations/:orgId/roles',
  summary: 'Creates a custom role (PBAC) with optional permissions',
  description:
    'The name is unique in the organization ignoring case, and may not be owner, admin, member, ' +
    `owner_role, admin_role or member_role in any case (400). ${GRANT_RULE}`,
  tags: ['Roles'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.create' },
  params: orgParams,
  body: named(
    'CreateRoleRequest',
    z.strictObject({ name: roleName, color, description, permissions: permissionList.optional() }),
    { name: 'Scheduler', color: '#3366ff', permissions: ['eventType.read', 'eventType.create'] },
  ),
  response: { status: 201, description: 'The role', schema: roleOutput },
  handler: async ({ deps, params, body, access, caller, ctx }) => {
    const permissions = requireValidPermissions(body.permissions ?? []);
    requireGrantable(access!, permissions);
    const role = await createRole(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      params.orgId,
      { ...body, permissions },
      auditContextOf(caller, ctx),
    );
    return { status: 201, data: presentRole(role) };
  },
});
