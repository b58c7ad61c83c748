import { LimitReachedError, RecordStateError } from '@sched/db/errors';
import {
  addClientSecret,
  type ClientSecretSummary,
  type CreatedClientSecret,
  listClientSecrets,
  PUBLIC_CLIENT_SECRET_MESSAGE,
  revokeClientSecret,
  TOO_MANY_SECRETS_MESSAGE,
} from '@sched/db/queries/oauth-clients';
import { transactionWithBumps } from '@sched/db/versions';
import { BadRequestError, NotFoundError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import { auditClient } from './audit.ts';
import { withLockedClient } from './locked.ts';
import { type Actor, CLIENT_NOT_FOUND, clientFor } from './rights.ts';

/**
 * Client secrets: at most 2 active (`TOO_MANY_SECRETS_MESSAGE`, counted under the row lock by
 * `addClientSecret`), revocation at once, never the last one of a confidential client.
 */
export { MAX_ACTIVE_SECRETS, TOO_MANY_SECRETS_MESSAGE } from '@sched/db/queries/oauth-clients';

export const LAST_SECRET_MESSAGE =
  'Cannot delete the only active secret of a confidential client. Generate a new secret first.';
export const SECRET_NOT_FOUND = 'Client secret not found';

/** A new secret, in plain text in the result only. */
export async function generateSecret(
  deps: Runtime,
  actor: Actor,
  clientId: string,
): Promise<CreatedClientSecret> {
  const knex = deps.stores.db.knex;
  const client = await clientFor(knex, actor, clientId, 'manage');
  // Counting and inserting happen under a row lock (addClientSecret); it bumps the version.
  let created: CreatedClientSecret | null;
  try {
    // The secret and its audit event (its hint, never the secret) commit together.
    created = await transactionWithBumps(knex, deps.stores.tokenStore, async (trx, bumper) => {
      const made = await addClientSecret(trx, bumper, client.id);
      if (made) {
        await auditClient(
          trx,
          actor,
          'oauth_client.secret_created',
          client.id,
          { secretId: made.id, hint: made.hint },
          { organizationId: client.organizationId, after: { secretId: made.id, hint: made.hint } },
        );
      }
      return made;
    });
  } catch (error) {
    if (error instanceof LimitReachedError) throw new BadRequestError(TOO_MANY_SECRETS_MESSAGE);
    if (error instanceof RecordStateError) throw new BadRequestError(PUBLIC_CLIENT_SECRET_MESSAGE);
    throw error;
  }
  if (!created) throw new NotFoundError(CLIENT_NOT_FOUND);
  return created;
}

/** Active secrets (hints only), oldest first. */
export async function listSecrets(
  deps: Runtime,
  actor: Actor,
  clientId: string,
): Promise<ClientSecretSummary[]> {
  const knex = deps.stores.db.knex;
  const client = await clientFor(knex, actor, clientId, 'view');
  if (client.clientType === 'public') throw new BadRequestError(PUBLIC_CLIENT_SECRET_MESSAGE);
  return listClientSecrets(knex, client.id);
}

export async function revokeSecret(
  deps: Runtime,
  actor: Actor,
  clientId: string,
  secretId: number,
): Promise<ClientSecretSummary> {
  await clientFor(deps.stores.db.knex, actor, clientId, 'manage');
  return withLockedClient(deps, clientId, async (trx, client, bumper) => {
    if (client.clientType === 'public') throw new BadRequestError(PUBLIC_CLIENT_SECRET_MESSAGE);
    const active = await listClientSecrets(trx, client.id);
    const secret = active.find((s) => s.id === secretId);
    if (!secret) throw new NotFoundError(SECRET_NOT_FOUND);
    if (active.length <= 1) throw new BadRequestError(LAST_SECRET_MESSAGE);
    await revokeClientSecret(trx, bumper, client.id, secret.id);
    await auditClient(
      trx,
      actor,
      'oauth_client.secret_revoked',
      client.id,
      { secretId: secret.id, hint: secret.hint },
      {
        organizationId: client.organizationId,
        before: { secretId: secret.id, hint: secret.hint, revoked: false },
        after: { secretId: secret.id, hint: secret.hint, revoked: true },
      },
    );
    return secret;
  });
}
