import { listApiKeys } from '@sched/db/queries/api-keys';
import { z } from 'zod';
import { apiKeyOutput, presentApiKey } from '../../presenters/api-key.ts';
import { defineRoute } from '../../routing/route.ts';

export const listApiKeysRoute = defineRoute({
  method: 'GET',
  path: '/api-keys',
  summary: "The caller's active API keys, newest first (hints only)",
  tags: ['API keys'],
  auth: 'api-key',
  response: { status: 200, description: 'Keys', schema: z.array(apiKeyOutput) },
  handler: async ({ caller, deps }) => ({
    data: (await listApiKeys(deps.stores.db.knex, caller.userId)).map(presentApiKey),
  }),
});
