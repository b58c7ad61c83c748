import { removeRolePermissions } from '@sched/db/queries/roles';
import { BadRequestError } from '@sched/kit/errors';
import { z } from 'zod';
import { permissionsOutput } from '../../presenters/role.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireManageable, requireValidPermissions } from '../../services/permissions.ts';
import { permissionList, requireCustomRole, roleParams } from '../roles/role-input.ts';
import { named } from '../../openapi/named.ts';

const NEITHER =
  'Name the permissions to remove: a JSON body {"permissions": [...]} or the query ?permissions=a,b';
const BOTH =
  'Name the permissions to remove either in the JSON body or in the query ?permissions=a,b, not both';

/** The permissions as the body or the query gives them (exactly one of the two). */
function requested(body: { permissions?: string[] | undefined } | undefined, query: string | undefined) {
  const fromBody = body?.permissions;
  if (fromBody !== undefined && query !== undefined)
    throw new BadRequestError(BOTH, [{ field: 'query.permissions', message: 'also given in the body' }]);
  if (fromBody !== undefined) return requireValidPermissions(fromBody);
  if (query !== undefined) return requireValidPermissions(query.split(','), () => 'query.permissions');
  throw new BadRequestError(NEITHER, [{ field: 'body.permissions', message: 'required (or the query)' }]);
}

export const removePermissionsRoute = defineRoute({
  method: 'DELETE',
  path: '/organizations/:orgId/roles/:roleId/permissions',
  summary: 'Removes several permissions from a custom role; returns what is left',
  description:
    'The permissions come either as a JSON body `{"permissions": [...]}` or as the query ' +
    '`?permissions=a,b` (comma-separated), not both and not neither (400). Each is validated like ' +
    'on creation (400 with the same message). Permissions the role does not hold are ignored. ' +
    "Removing grants nothing: no check of the caller's own permissions.",
  tags: ['Role permissions'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'role.update' },
  params: roleParams,
  query: z.strictObject({
    permissions: z.string().max(5000).optional().meta({
      description: 'comma-separated permissions, e.g. eventType.read,booking.create (instead of a body)',
    }),
  }),
  body: named(
    'RemovePermissionsRequest',
    z.strictObject({ permissions: permissionList.min(1).optional() }).optional(),
    { permissions: ['eventType.create'] },
  ),
  response: { status: 200, description: "The role's remaining permissions", schema: permissionsOutput },
  handler: async ({ deps, params, query, body, access, caller, ctx }) => {
    const permissions = requested(body, query.permissions);
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
