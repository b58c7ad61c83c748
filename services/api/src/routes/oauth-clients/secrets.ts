import { presentNewSecret, presentSecret } from '@sched/clients/present';
import { generateSecret, listSecrets, revokeSecret } from '@sched/clients/secrets';
import { z } from 'zod';
import { actorOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { secretOutput } from './present.ts';
import { named } from '../../openapi/named.ts';

const TAGS = ['OAuth clients'];

export const createSecretRoute = defineRoute({
  method: 'POST',
  path: '/oauth-clients/:clientId/secrets',
  summary: 'Generates a client secret (at most 2 active); the secret is in this response only',
  tags: TAGS,
  auth: 'api-key',
  rateLimit: { name: 'client-secrets', what: 'client secrets generated' },
  params: z.strictObject({ clientId: z.string().max(200) }),
  response: {
    status: 201,
    description: 'The new secret',
    schema: named(
      'NewClientSecret',
      secretOutput.extend({ secret: z.string().meta({ description: 'shown once' }) }),
      {
        id: 3,
        secretHint: '****7e2b',
        createdAt: '2026-11-26T09:30:00.000Z',
        secret: 'css_9d2f7a4c1e8b5d3f6a9c2e7b4d1f8a5c',
      },
    ),
  },
  handler: async ({ caller, deps, params, ctx }) => ({
    status: 201,
    data: presentNewSecret(await generateSecret(deps, actorOf(caller, ctx), params.clientId)),
  }),
});

export const listSecretsRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients/:clientId/secrets',
  summary: "The client's active secrets (masked hints only), oldest first",
  tags: TAGS,
  auth: 'api-key',
  params: z.strictObject({ clientId: z.string().max(200) }),
  response: { status: 200, description: 'Secrets', schema: z.array(secretOutput) },
  handler: async ({ caller, deps, params }) => ({
    data: (await listSecrets(deps, caller, params.clientId)).map(presentSecret),
  }),
});

export const revokeSecretRoute = defineRoute({
  method: 'DELETE',
  path: '/oauth-clients/:clientId/secrets/:secretId',
  summary: 'Revokes a client secret at once (no grace period); the last active one cannot be revoked',
  tags: TAGS,
  auth: 'api-key',
  params: z.strictObject({ clientId: z.string().max(200), secretId: idParam }),
  response: { status: 200, description: 'The revoked secret', schema: secretOutput },
  handler: async ({ caller, deps, params, ctx }) => ({
    data: presentSecret(await revokeSecret(deps, actorOf(caller, ctx), params.clientId, params.secretId)),
  }),
});
