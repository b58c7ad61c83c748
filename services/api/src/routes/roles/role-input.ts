import { findRole, type Role } from '@sched/db/queries/roles';
import { ForbiddenError, NotFoundError } from '@sched/kit/errors';
import { isReservedRoleName, reservedRoleNameMessage } from '@sched/policy/role-names';
import type { Runtime } from '@sched/runtime/runtime';
import { z } from 'zod';
import { idParam, text } from '../../routing/schemas.ts';

export const orgParams = z.strictObject({ orgId: idParam });
export const roleParams = z.strictObject({ orgId: idParam, roleId: z.string().min(1).max(100) });

export const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color like #2563eb')
  .nullable()
  .optional();
export const description = z.string().max(1000).nullable().optional();
/** Unique per organization in any case (the database says so: 400); never a reserved name (400). */
export const roleName = text(100)
  .refine((name) => !isReservedRoleName(name), reservedRoleNameMessage)
  .meta({
    description: `unique in the organization ignoring case; ${reservedRoleNameMessage}`,
  });
/** Permission strings; each checked against the catalogue (fixed 400 message) by the handler. */
export const permissionList = z.array(z.string().max(100)).max(100);

/** The rule every route that puts permissions on a role follows, for its OpenAPI description. */
export const GRANT_RULE =
  'The caller must hold every permission they put on the role, and to change or delete a role every ' +
  'permission it has, in this organization (OWNER holds ' +
  'all; otherwise their system role (admin_role / member_role) and, with PBAC on, their custom ' +
  'role; a wildcard is held only when everything it covers is): otherwise 403 ' +
  '`You cannot grant permissions you do not hold: <those not held>`. An invalid permission is 400 ' +
  "`Permission '<p>' must be a valid permission string in format 'resource.action' " +
  "(e.g., 'eventType.read', 'booking.create')`.";

/** A role visible in the organization (system or its own custom role); 404 otherwise. */
export async function requireRole(deps: Runtime, organizationId: number, roleId: string): Promise<Role> {
  const role = await findRole(deps.stores.db.knex, organizationId, roleId);
  if (!role) throw new NotFoundError('Role not found');
  return role;
}

/** A custom role of the organization: system roles cannot be changed (403). */
export async function requireCustomRole(
  deps: Runtime,
  organizationId: number,
  roleId: string,
): Promise<Role> {
  const role = await requireRole(deps, organizationId, roleId);
  if (role.type === 'SYSTEM') throw new ForbiddenError('System roles cannot be changed');
  return role;
}
