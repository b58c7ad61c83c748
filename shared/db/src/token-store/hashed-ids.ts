import { memoized } from '@sched/kit/memoized';
import { HASHED_ID_MODELS, storedTokenId } from './keys.ts';
import type {
  RecordRef,
  RecordWithVersions,
  RecordWrite,
  Settlement,
  TokenPayload,
  TokenStore,
} from './types.ts';

/** Presented access tokens whose stored id is kept (the resource API reads the same few again and again). */
const MEMO_SIZE = 4096;

/** Without a lifetime from the config: the longest REFRESH_TOKEN_TTL allows (a year). */
const DEFAULT_LIFETIME_SECONDS = 365 * 24 * 3600;
/**
 * Added to the lifetime: processes of the version before may still write records of the old
 * layout for a while after the first process of this one set the mark (a rolling upgrade).
 */
const ROLLOUT_MARGIN_MS = 24 * 3600 * 1000;

export interface HashedIdsOptions {
  /**
   * Seconds: the longest any code, token or session lives (`longestTokenLifetime` of the config).
   * Records of the old layout are looked for until that long, and a day more, after the store
   * first served hashed ids. Default: a year, the longest any configuration allows.
   */
  longestTokenLifetime?: number | undefined;
}

/**
 * oidc-provider's models among them: their records carry the id as `jti` (dropped on write, put
 * back on read), and those of the old layout (keyed by the raw id) are still looked for. Not
 * RefreshRetry (refresh-window.ts): its kept answers carry no `jti` and last seconds.
 */
const JTI_MODELS: ReadonlySet<string> = new Set([...HASHED_ID_MODELS].filter((m) => m !== 'RefreshRetry'));

/**
 * Bearer secrets hashed at rest (docs/token-store.md "Hashed ids"): over a store that keeps ids as
 * given, the records of `HASHED_ID_MODELS` are keyed by `storedTokenId(id)`, and their payload
 * holds no copy of the id (oidc-provider's `jti` is dropped on write and put back from the
 * presented id on read). A copy of Redis or of token_records therefore holds no usable token.
 *
 * Records written before hashing (keyed by the raw id, `jti` inside) are still found, consumed and
 * destroyed under the raw id when the hashed one is missing, until they expire: no live token is
 * lost on the upgrade. New writes only ever use the hashed id, and `upsert` and `destroy` remove
 * the raw record too, so a record never lives on in both forms with different states (a signed-out
 * session or a used refresh token cannot come back through the other one). All of that ends by
 * itself once every such record has expired: the store keeps when it first served hashed ids
 * (`hashingBegan`, read once), and a longest token lifetime (and a day) later the wrapper neither
 * reads nor deletes raw ids any more; a token the store lacks then costs one read, not two.
 *
 * Records found by uid or user code (`findByUid`: oidc-provider's Session lookups in
 * interactionDetails and checkSessionBinding) come back without `jti`: nothing can derive it from
 * the hash. oidc-provider only reads those Sessions, never saves or destroys them.
 */
export function withHashedIds(inner: TokenStore, options: HashedIdsOptions = {}): TokenStore {
  // The resource API reads the same access tokens again and again: their stored ids are kept.
  // Nothing else is: a code or refresh token is used once, and a memo of those would only carry
  // them into the old generation before dropping them (issue 22).
  const storedOfRead = memoized(storedTokenId, MEMO_SIZE);
  const stored = storedTokenId;
  const hashed = (model: string) => HASHED_ID_MODELS.has(model);
  const ref = (r: RecordRef): RecordRef => (hashed(r.model) ? { model: r.model, id: stored(r.id) } : r);
  const write = (w: RecordWrite): RecordWrite => ({
    ...w,
    id: hashed(w.model) ? stored(w.id) : w.id,
    payload: withoutSecrets(w.model, w.payload),
  });

  const lifetimeMs = (options.longestTokenLifetime ?? DEFAULT_LIFETIME_SECONDS) * 1000 + ROLLOUT_MARGIN_MS;
  /** Epoch ms after which no record of the old layout is left; known once the mark was read. */
  let fallbackEnds: number | undefined;
  let ended = false;
  let markRead: Promise<number> | undefined;
  /**
   * Whether records of the old layout may still be alive: a compare once the mark is known; the
   * first call reads (or, on a store that has none yet, writes) it, and a failed read is retried
   * by the next call.
   */
  function fallbackOpen(): boolean | Promise<boolean> {
    if (ended) return false;
    if (fallbackEnds !== undefined) {
      ended = Date.now() >= fallbackEnds;
      return !ended;
    }
    markRead ??= inner.hashingBegan(Date.now()).then(
      (began) => {
        fallbackEnds = began + lifetimeMs;
        return fallbackEnds;
      },
      (error: unknown) => {
        markRead = undefined;
        throw error;
      },
    );
    return markRead.then(() => fallbackOpen());
  }

  /**
   * Whether a record of the old layout is under the raw id. Only a record carrying the id as its
   * `jti` counts: a record of the new layout has none, so presenting a stored (hashed) id as if it
   * were a token finds, consumes and revokes nothing.
   */
  async function legacy(model: string, id: string): Promise<boolean> {
    return JTI_MODELS.has(model) && (await fallbackOpen()) && (await inner.find(model, id))?.jti === id;
  }
  /** Deletes the record of the old layout under the raw id, while there may be one. */
  async function destroyLegacy(model: string, id: string): Promise<void> {
    if (await fallbackOpen()) await inner.destroy(model, id);
  }
  const legacyRecord = <P extends TokenPayload>(model: string, id: string, record: P | undefined) =>
    JTI_MODELS.has(model) && record?.jti === id ? record : undefined;

  /** Frozen records shared between reads (Redis access tokens), with their `jti` put back. */
  const withJti = new WeakMap<object, TokenPayload>();
  function restored<P extends TokenPayload>(model: string, record: P | undefined, id: string): P | undefined {
    if (record === undefined || record.jti === id || !JTI_MODELS.has(model)) return record;
    if (!Object.isFrozen(record)) {
      (record as TokenPayload).jti = id;
      return record;
    }
    const known = withJti.get(record);
    if (known?.jti === id) return known as P;
    const copy = Object.freeze({ ...record, jti: id }) as P;
    withJti.set(record, copy);
    return copy;
  }

  return {
    ...inner,

    async upsert(model, id, payload, expiresInSeconds) {
      const { id: storedId, payload: kept } = write({ model, id, payload });
      // A record of the old layout saved again (a session found under its raw id) moves: it never
      // lives on in both forms.
      await Promise.all([
        inner.upsert(model, storedId, kept, expiresInSeconds),
        hashed(model) && destroyLegacy(model, id),
      ]);
    },

    async find<P extends TokenPayload>(model: string, id: string): Promise<P | undefined> {
      if (!hashed(model)) return inner.find<P>(model, id);
      const found = await inner.find<P>(model, stored(id));
      if (found !== undefined) return restored(model, found, id);
      if (!JTI_MODELS.has(model) || !(await fallbackOpen())) return undefined;
      return legacyRecord(model, id, await inner.find<P>(model, id));
    },

    findByUid: (model, uid) => inner.findByUid(model, uid),
    findByUserCode: (model, userCode) => inner.findByUserCode(model, userCode),

    async consume(model, id) {
      if (!hashed(model)) return inner.consume(model, id);
      if (await inner.consume(model, stored(id))) return true;
      return (await legacy(model, id)) && inner.consume(model, id);
    },

    async consumeAndUpsert(consume, writes) {
      const mapped = writes.map(write);
      if (!consume || !hashed(consume.model)) return inner.consumeAndUpsert(consume, mapped);
      if (await inner.consumeAndUpsert(ref(consume), mapped)) return true;
      // Nothing was written; a record of the old layout is consumed with the same writes instead.
      return (await legacy(consume.model, consume.id)) && inner.consumeAndUpsert(consume, mapped);
    },

    async consumeAndUpsertOrRead(consume, writes, otherwise): Promise<Settlement> {
      const mapped = writes.map(write);
      const other = ref(otherwise);
      let settlement = await inner.consumeAndUpsertOrRead(ref(consume), mapped, other);
      if (
        !settlement.settled &&
        settlement.found === undefined &&
        hashed(consume.model) &&
        (await legacy(consume.model, consume.id))
      ) {
        settlement = await inner.consumeAndUpsertOrRead(consume, mapped, other);
      }
      if (settlement.settled || !hashed(otherwise.model)) return settlement;
      return { settled: false, found: restored(otherwise.model, settlement.found, otherwise.id) };
    },

    // Ids destroyed are ones the server issued or found (oidc-provider finds before it destroys),
    // never a value a client presents unchecked.
    async destroy(model, id) {
      if (!hashed(model)) return inner.destroy(model, id);
      await Promise.all([inner.destroy(model, stored(id)), destroyLegacy(model, id)]);
    },

    findWithVersions<P extends TokenPayload>(
      model: string,
      id: string,
      versionKeys: readonly string[],
    ): Promise<RecordWithVersions<P>> {
      // Not async, as the stores' own: the resource API's read of every request.
      if (!hashed(model)) return inner.findWithVersions<P>(model, id, versionKeys);
      const storedId = model === 'AccessToken' ? storedOfRead(id) : stored(id);
      return inner.findWithVersions<P>(model, storedId, versionKeys).then((read) => {
        if (read.record !== undefined || !JTI_MODELS.has(model))
          return { record: restored(model, read.record as P | undefined, id), versions: read.versions };
        // A token of the old layout, or none: one more read, only for a token the store lacks, and
        // only while records of the old layout may be alive.
        const open = fallbackOpen();
        if (open === false) return read;
        const old = () =>
          inner.findWithVersions<P>(model, id, versionKeys).then((found) => ({
            record: legacyRecord(model, id, found.record as P | undefined),
            versions: found.versions,
          }));
        return open === true ? old() : open.then((again) => (again ? old() : read));
      });
    },
  };
}

/**
 * The payload as stored: no `jti` for a hashed model (it is the id), and no session cookie value
 * in an Interaction (oidc-provider copies the session's id into `session.cookie` and never reads
 * it back).
 */
function withoutSecrets(model: string, payload: TokenPayload): TokenPayload {
  if (!HASHED_ID_MODELS.has(model) && model !== 'Interaction') return payload;
  if (model === 'Interaction') {
    const session = payload.session as Record<string, unknown> | undefined;
    if (session === null || typeof session !== 'object' || !('cookie' in session)) return payload;
    const { cookie: _cookie, ...rest } = session;
    return { ...payload, session: rest };
  }
  if (!('jti' in payload)) return payload;
  const { jti: _jti, ...rest } = payload;
  return rest;
}
