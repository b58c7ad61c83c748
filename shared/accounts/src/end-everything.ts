import { revokeAllApiKeys } from '@sched/db/queries/api-keys';
import { accessVersionKey } from '@sched/db/queries/access-facts';
import type { AccountDeps } from './deps.ts';

export interface EndedEverything {
  /** Usable OAuth codes, access and refresh tokens ended (grants of every client). */
  tokens: number;
  apiKeys: number;
  /** Browser sessions at the authorization server. */
  sessions: number;
}

/**
 * Ends everything the account can be used with (a completed password reset): every browser session
 * at the authorization server, every API key, every OAuth grant with its access and refresh tokens
 * (the token store's owner index: `revokeByUser`, `revokeSessionsOfUser`). The `user:<id>` version
 * is bumped so every API process drops its cached keys on the next request.
 *
 * Interim: `@sched/clients/connected-apps` `revokeEverythingOf` (the token-index work) does the
 * same and also forgets remembered consents; this function is the one place to switch to it.
 */
export async function endEverythingOf(deps: AccountDeps, userId: number): Promise<EndedEverything> {
  const store = deps.stores.tokenStore;
  const accountId = String(userId);
  const [tokens, apiKeys, sessions] = await Promise.all([
    store.revokeByUser(accountId),
    revokeAllApiKeys(deps.stores.db.knex, userId),
    store.revokeSessionsOfUser(accountId),
  ]);
  await store.bumpVersion(accessVersionKey.user(userId));
  return { tokens, apiKeys, sessions };
}
