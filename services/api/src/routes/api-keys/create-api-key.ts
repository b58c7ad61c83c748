import { createApiKey } from '@sched/db/queries/api-keys';
import { z } from 'zod';
import { apiKeyOutput, presentApiKey } from '../../presenters/api-key.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { named } from '../../openapi/named.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireVerifiedEmail } from '../me/verified.ts';

export const createApiKeyRoute = defineRoute({
  method: 'POST',
  path: '/api-keys',
  summary: 'Creates an API key for the caller; the key (svc_...) is in this response only',
  tags: ['API keys'],
  auth: 'api-key',
  // Permanent credentials: a burst of them is a stolen key at work, not a person.
  rateLimit: { name: 'api-keys', what: 'API keys created' },
  response: {
    status: 201,
    description: 'The new key',
    schema: named(
      'NewApiKey',
      apiKeyOutput.extend({ apiKey: z.string().meta({ description: 'svc_...; shown once' }) }),
      {
        id: 4,
        hint: 'h2aY',
        createdAt: '2026-11-26T09:30:00.000Z',
        lastUsedAt: null,
        apiKey: 'svc_j9eclFkhsAZ6fMwEQGylNYbgSPsG9IgllrrB1WCh2aY',
      },
    ),
  },
  handler: async ({ caller, deps, ctx }) => {
    await requireVerifiedEmail(deps, caller.userId);
    const key = await createApiKey(deps.stores.db.knex, caller.userId, auditContextOf(caller, ctx));
    return { status: 201, data: { ...presentApiKey(key), apiKey: key.plain } };
  },
});
