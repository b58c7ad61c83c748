import type { Role } from '@sched/db/queries/roles';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/** A role as the API shows it. */
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

export const roleOutput = named(
  'Role',
  z.object({
    id: z.string(),
    name: z.string(),
    color: z.string().nullable(),
    description: z.string().nullable(),
    organizationId: z.int().nullable().meta({ description: 'null for the system roles' }),
    type: z.enum(['SYSTEM', 'CUSTOM']),
    permissions: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  {
    id: 'role_3',
    name: 'Scheduler',
    color: '#3366ff',
    description: 'Manages event types',
    organizationId: 7,
    type: 'CUSTOM',
    permissions: ['eventType.read', 'eventType.create'],
    createdAt: '2026-11-26T09:30:00.000Z',
    updatedAt: '2026-11-26T09:30:00.000Z',
  },
);

export const permissionsOutput = named('Permissions', z.array(z.string()), [
  'eventType.read',
  'eventType.create',
]);
