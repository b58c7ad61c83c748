import type { Role } from '@sched/db/queries/roles';
import { z } from 'zod';

/** Contract §8 role. */
export function presentRole(role: Role) {
  return {
    id: role.id,
    name: role.name,
    color: role.color,
    description: role.description,
    organizationId: role.organizationId,
    type: role.type,
    permissions: role.permissions,
    createdAt: role.createdAt.toISOString(),
    updatedAt: role.updatedAt.toISOString(),
  };
}

export const roleOutput = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string().nullable(),
  description: z.string().nullable(),
  organizationId: z.int().nullable().meta({ description: 'null for the system roles' }),
  type: z.enum(['SYSTEM', 'CUSTOM']),
  permissions: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const permissionsOutput = z.array(z.string());
