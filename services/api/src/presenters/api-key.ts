import type { ApiKeySummary } from '@sched/db/queries/api-keys';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/** An API key as listed: `{id, hint, createdAt, lastUsedAt}`; the plain key is never shown again. */
export function presentApiKey(key: ApiKeySummary) {
  return {
    id: key.id,
    hint: key.hint,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
  };
}

export const apiKeyOutput = named(
  'ApiKey',
  z.object({
    id: z.int(),
    hint: z.string().meta({ description: 'last 4 characters of the key' }),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  }),
  { id: 3, hint: 'a1b2', createdAt: '2026-11-26T09:30:00.000Z', lastUsedAt: null },
);
