import { listApiKeys, revokeApiKey } from '@sched/db/queries/api-keys';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { apiKeyOutput, presentApiKey } from '../../presenters/api-key.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';

export const deleteApiKeyRoute = defineRoute({
  method: 'DELETE',
  path: '/api-keys/:id',
  summary: "Revokes one of the caller's API keys, effective on the very next request in every process",
  tags: ['API keys'],
  auth: 'api-key',
  params: z.strictObject({ id: idParam }),
  response: { status: 200, description: 'The revoked key', schema: apiKeyOutput },
  handler: async ({ caller, deps, params, ctx }) => {
    const knex = deps.stores.db.knex;
    const key = (await listApiKeys(knex, caller.userId)).find((k) => k.id === params.id);
    if (
      !key ||
      !(await revokeApiKey(
        knex,
        deps.stores.tokenStore,
        caller.userId,
        params.id,
        auditContextOf(caller, ctx),
      ))
    )
      throw new NotFoundError('API key not found');
    return { data: presentApiKey(key) };
  },
});
