import { lockOAuthClient } from '@sched/db/queries/oauth-client-management';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { transactionWithBumps, type VersionBumper } from '@sched/db/versions';
import { NotFoundError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import type { Knex } from 'knex';
import { CLIENT_NOT_FOUND } from './rights.ts';

/**
 * Runs `work` in one transaction with the client's row locked (404 when it is gone by then). The
 * version bumps `work` makes through `bumper` reach the token store after the commit. Rights are
 * the caller's to check first.
 */
export async function withLockedClient<T>(
  deps: Runtime,
  clientId: string,
  work: (trx: Knex.Transaction, client: OAuthClient, bumper: VersionBumper) => Promise<T>,
): Promise<T> {
  return transactionWithBumps(deps.stores.db.knex, deps.stores.tokenStore, async (trx, bumper) => {
    const client = await lockOAuthClient(trx, clientId);
    if (!client) throw new NotFoundError(CLIENT_NOT_FOUND);
    return work(trx, client, bumper);
  });
}
