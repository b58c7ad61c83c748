import type { ResourceServer } from '@sched/db/queries/resource-servers';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/** A resource server as listed: never its secret (only its last 4 characters). */
export function presentResourceServer(server: ResourceServer) {
  return {
    id: server.id,
    name: server.name,
    description: server.description,
    secretHint: `****${server.secretHint}`,
    createdAt: server.createdAt.toISOString(),
  };
}

export const resourceServerOutput = named(
  'ResourceServer',
  z.object({
    id: z.string().meta({ description: 'the client_id to present at the introspection endpoint' }),
    name: z.string(),
    description: z.string().nullable(),
    secretHint: z.string().meta({ description: 'last 4 characters of the secret' }),
    createdAt: z.string(),
  }),
  {
    id: 'rs_5f2c9a7e',
    name: 'Billing API',
    description: null,
    secretHint: '****9c3d',
    createdAt: '2026-11-26T09:30:00.000Z',
  },
);
