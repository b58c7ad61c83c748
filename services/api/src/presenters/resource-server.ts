import type { ResourceServer } from '@sched/db/queries/resource-servers';
import { z } from 'zod';

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

export const resourceServerOutput = z.object({
  id: z.string().meta({ description: 'the client_id to present at the introspection endpoint' }),
  name: z.string(),
  description: z.string().nullable(),
  secretHint: z.string().meta({ description: 'last 4 characters of the secret' }),
  createdAt: z.string(),
});
