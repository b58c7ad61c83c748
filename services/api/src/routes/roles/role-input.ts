import { findRole, type Role } from '@sched/db/queries/roles';
import { ForbiddenError, NotFoundError } from '@sched/kit/errors';
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
export const roleName = text(100);
/** Permission strings; each checked against the catalogue (exact contract message) by the handler. */
export const permissionList = z.array(z.string().max(100)).max(100);

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
