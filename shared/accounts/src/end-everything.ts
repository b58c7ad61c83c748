import { revokeAllApiKeys } from '@sched/db/queries/api-keys';
import { forgetAllConsents } from '@sched/db/queries/consents';
import type { AccountDeps } from './deps.ts';

/** What `endEverythingOf` ended. */
export interface EndedEverything {
  /** Usable OAuth codes, access and refresh tokens ended (grants of every client). */
  tokens: number;
  apiKeys: number;
  /** Browser sessions at the authorization server (settings pages and authorization). */
  sessions: number;
  /** Remembered consents forgotten (every app asks again). */
  consents: number;
}

/**
 * Everything an account can be used with, ended at once: every remembered consent, OAuth grant and
 * token of every client (the token store's owner index: `revokeByUser`), every API key, every
 * browser session (`revokeSessionsOfUser`). The one path for a completed password reset (it ends
 * every session, revokes every API key and every OAuth grant), a disabled or deleted account. Every
 * API process refuses the tokens and keys on its next request: the token records are gone, and
 * revoking the keys bumps the `user:<id>` version.
 */
export async function endEverythingOf(
  deps: Pick<AccountDeps, 'stores'>,
  userId: number,
): Promise<EndedEverything> {
  const store = deps.stores.tokenStore;
  const knex = deps.stores.db.knex;
  const accountId = String(userId);
  // Consents first, so that no authorization reuses one once the grants are gone.
  const consents = await forgetAllConsents(knex, userId);
  const [tokens, apiKeys, sessions] = await Promise.all([
    store.revokeByUser(accountId),
    revokeAllApiKeys(knex, store, userId),
    store.revokeSessionsOfUser(accountId),
  ]);
  return { tokens, apiKeys, sessions, consents };
}
