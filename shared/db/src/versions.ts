import type { Knex } from 'knex';

/**
 * Cache invalidation follows from the write. Every data-layer function that changes something a
 * process caches (the API's access facts, API keys, user facts and membership reads; the
 * authorization server's clients) takes a `VersionBumper` and bumps the version keys of what it
 * changed itself, once its write is committed: `accessVersionKey` (access-facts.ts) and
 * `clientVersionKey` (oauth-clients.ts) say which key covers what. Callers pass the token store,
 * or, for several writes in one transaction, use `transactionWithBumps`, whose bumper holds the
 * bumps until the commit. Nobody bumps by hand.
 */

/** Where a write's bumps go: the token store (its `bumpVersion`), or a deferred bumper. */
export interface VersionBumper {
  bumpVersion(key: string): Promise<number>;
}

const DEFERRED = Symbol('deferred version bumper');

/** Holds bumps made inside a transaction; `flush` sends them once the transaction committed. */
export interface DeferredBumper extends VersionBumper {
  readonly [DEFERRED]: true;
  flush(target: VersionBumper): Promise<void>;
}

export function deferredBumper(): DeferredBumper {
  const keys = new Set<string>();
  return {
    [DEFERRED]: true,
    async bumpVersion(key: string) {
      keys.add(key);
      return 0;
    },
    async flush(target: VersionBumper) {
      const held = [...keys];
      keys.clear();
      await Promise.all(held.map((key) => target.bumpVersion(key)));
    },
  };
}

const isTransaction = (knex: Knex): boolean => (knex as { isTransaction?: boolean }).isTransaction === true;
const isDeferred = (versions: VersionBumper): boolean =>
  (versions as Partial<DeferredBumper>)[DEFERRED] === true;

/**
 * Called by a write function after its statement (or its own transaction) succeeded: bumps `keys`
 * together, so the commands travel in one round trip (Redis pipelines concurrent commands on its
 * connection). On `knex` that is a caller's transaction only a deferred bumper is accepted: a bump
 * before the commit would let another process cache the old row under the new version.
 */
export async function bumpAfterWrite(
  knex: Knex,
  versions: VersionBumper,
  keys: readonly string[],
): Promise<void> {
  if (keys.length === 0) return;
  if (isTransaction(knex) && !isDeferred(versions)) {
    throw new Error('a write inside a transaction bumps versions through transactionWithBumps');
  }
  await Promise.all(keys.map((key) => versions.bumpVersion(key)));
}

/**
 * Runs `work` in a transaction (a savepoint when `knex` is one already) and sends the bumps its
 * writes made through `bumper` to `versions` after the commit; none when it rolls back.
 */
export async function transactionWithBumps<T>(
  knex: Knex,
  versions: VersionBumper,
  work: (trx: Knex.Transaction, bumper: VersionBumper) => Promise<T>,
): Promise<T> {
  if (isTransaction(knex) && !isDeferred(versions)) {
    throw new Error("a transaction inside a transaction bumps through the outer one's bumper");
  }
  const bumper = deferredBumper();
  const result = await knex.transaction((trx) => work(trx, bumper));
  await bumper.flush(versions);
  return result;
}
