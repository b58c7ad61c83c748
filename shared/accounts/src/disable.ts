import type { AuditContext } from '@sched/db/queries/audit-log';
import { setUserDisabled } from '@sched/db/queries/users';
import type { AccountDeps } from './deps.ts';
import { type EndedEverything, endEverythingOf } from './end-everything.ts';

/** What `disableAccount` did; null from it when there is no such user. */
export interface DisabledAccount {
  userId: number;
  disabledAt: Date;
  /** False when the account was disabled already (everything is ended again all the same). */
  changed: boolean;
  ended: EndedEverything;
}

/**
 * Disables an account (operators: the CLI's `disable-user`, the admin console): it cannot sign in
 * any more (every sign-in form answers as for a wrong password), and everything it could be used
 * with ends at once (`endEverythingOf`: sessions, OAuth grants and tokens, API keys, consents).
 * The flag is set first, so nothing signs in between; `user:<id>` is bumped, so every API process
 * refuses the account's tokens and keys on its next request even if one survived.
 * With `audit`, the `user.disabled` event is written in the flag's transaction.
 */
export async function disableAccount(
  deps: Pick<AccountDeps, 'stores'>,
  userId: number,
  audit?: AuditContext,
): Promise<DisabledAccount | null> {
  const set = await setUserDisabled(deps.stores.db.knex, deps.stores.tokenStore, userId, true, audit);
  if (!set || set.disabledAt === null) return null;
  const ended = await endEverythingOf(deps, userId);
  return { userId, disabledAt: set.disabledAt, changed: set.changed, ended };
}

/**
 * Enables a disabled account again: it can sign in; what was ended on disable stays ended (old
 * tokens, keys and sessions do not come back). Null when there is no such user. With `audit`, the
 * `user.enabled` event is written in the same transaction.
 */
export async function enableAccount(
  deps: Pick<AccountDeps, 'stores'>,
  userId: number,
  audit?: AuditContext,
): Promise<{ userId: number; changed: boolean } | null> {
  const set = await setUserDisabled(deps.stores.db.knex, deps.stores.tokenStore, userId, false, audit);
  return set ? { userId, changed: set.changed } : null;
}
