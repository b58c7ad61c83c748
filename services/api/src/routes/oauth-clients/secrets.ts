import { deferredBumper, lockOAuthClient } from '@sched/db/queries/oauth-client-management';
import {
  addClientSecret,
  listClientSecrets,
  PUBLIC_CLIENT_SECRET_MESSAGE,
  revokeClientSecret,
} from '@sched/db/queries/oauth-clients';
import { BadRequestError, NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { presentNewSecret, presentSecret, secretOutput } from './present.ts';
import { audit, CLIENT_NOT_FOUND, clientFor } from './service.ts';

const TAGS = ['OAuth clients'];

export const LAST_SECRET_MESSAGE =
  'Cannot delete the only active secret of a confidential client. Generate a new secret first.';
export const SECRET_NOT_FOUND = 'Client secret not found';

export const createSecretRoute = defineRoute({
  method: 'POST',
  path: '/oauth-clients/:clientId/secrets',
  summary: 'Generates a client secret (at most 2 active); the secret is in this response only',
  tags: TAGS,
  auth: 'api-key',
  params: z.strictObject({ clientId: z.string().max(200) }),
  response: {
    status: 201,
    description: 'The new secret',
    schema: secretOutput.extend({ secret: z.string().meta({ description: 'shown once' }) }),
  },
  handler: async ({ caller, deps, params }) => {
    const knex = deps.stores.db.knex;
    const client = await clientFor(deps, caller, params.clientId, 'manage');
    // Counting and inserting happen under a row lock (addClientSecret); it bumps the version.
    const created = await addClientSecret(knex, deps.stores.tokenStore, client.id);
    if (!created) throw new NotFoundError(CLIENT_NOT_FOUND);
    await audit(knex, caller.userId, 'oauth_client.secret_created', client.id, {
      secretId: created.id,
      hint: created.hint,
    });
    return { status: 201, data: presentNewSecret(created) };
  },
});

export const listSecretsRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients/:clientId/secrets',
  summary: "The client's active secrets (masked hints only), oldest first",
  tags: TAGS,
  auth: 'api-key',
  params: z.strictObject({ clientId: z.string().max(200) }),
  response: { status: 200, description: 'Secrets', schema: z.array(secretOutput) },
  handler: async ({ caller, deps, params }) => {
    const client = await clientFor(deps, caller, params.clientId, 'view');
    if (client.clientType === 'public') throw new BadRequestError(PUBLIC_CLIENT_SECRET_MESSAGE);
    return { data: (await listClientSecrets(deps.stores.db.knex, client.id)).map(presentSecret) };
  },
});

export const revokeSecretRoute = defineRoute({
  method: 'DELETE',
  path: '/oauth-clients/:clientId/secrets/:secretId',
  summary: 'Revokes a client secret at once (no grace period); the last active one cannot be revoked',
  tags: TAGS,
  auth: 'api-key',
  params: z.strictObject({ clientId: z.string().max(200), secretId: idParam }),
  response: { status: 200, description: 'The revoked secret', schema: secretOutput },
  handler: async ({ caller, deps, params }) => {
    const knex = deps.stores.db.knex;
    await clientFor(deps, caller, params.clientId, 'manage');
    const bumper = deferredBumper();
    const revoked = await knex.transaction(async (trx) => {
      const client = await lockOAuthClient(trx, params.clientId);
      if (!client) throw new NotFoundError(CLIENT_NOT_FOUND);
      if (client.clientType === 'public') throw new BadRequestError(PUBLIC_CLIENT_SECRET_MESSAGE);
      const active = await listClientSecrets(trx, client.id);
      const secret = active.find((s) => s.id === params.secretId);
      if (!secret) throw new NotFoundError(SECRET_NOT_FOUND);
      if (active.length <= 1) throw new BadRequestError(LAST_SECRET_MESSAGE);
      await revokeClientSecret(trx, bumper, client.id, secret.id);
      await audit(trx, caller.userId, 'oauth_client.secret_revoked', client.id, {
        secretId: secret.id,
        hint: secret.hint,
      });
      return secret;
    });
    await bumper.flush(deps.stores.tokenStore);
    return { data: presentSecret(revoked) };
  },
});
