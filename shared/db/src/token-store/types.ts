/**
 * The token store: what oidc-provider persists (any model name: Session, Interaction,
 * AuthorizationCode, AccessToken, RefreshToken, Grant, ReplayDetection, ...) plus rate-limit
 * counters and cache-invalidation versions. Two implementations with the same behaviour:
 * Redis (`./redis.ts`, production) and SQL (`./sql.ts`, Postgres or the embedded PGlite).
 * The resource API reads access-token records from it directly; the layout is documented in
 * docs/token-store.md and `./keys.ts`.
 */

/** A stored oidc-provider payload. Opaque to the store except the indexed fields below. */
export interface TokenPayload {
  /** Indexed: `revokeByGrantId` deletes every record carrying this grant id. */
  grantId?: string;
  /** Indexed: `findByUid`. */
  uid?: string;
  /** Indexed: `findByUserCode`. */
  userCode?: string;
  /** Epoch seconds at which the record was consumed; set by the store, read by oidc-provider. */
  consumed?: number;
  /**
   * Indexed with `clientId` (the owner index, docs/token-store.md): a record carrying both is found
   * by `revokeByUserAndClient`, `revokeByClient` and `revokeByUser`; one carrying only an account
   * (a browser Session) by `revokeSessionsOfUser`.
   */
  accountId?: string;
  clientId?: string;
  [field: string]: unknown;
}

/**
 * The fields of an `AccessToken` record the resource API relies on. They come from
 * oidc-provider (opaque tokens: the record is found by the token value, stored under its hash,
 * docs/token-store.md "Hashed ids"); `extra` is what the auth service's `extraTokenClaims`
 * returns (e.g. `extra.legacy`).
 */
export interface AccessTokenPayload extends TokenPayload {
  kind: 'AccessToken';
  /** The token value itself: not stored, put back from the token read. */
  jti: string;
  /** The user (oidc-provider account id, our user id as a string). */
  accountId: string;
  clientId: string;
  /** Space-separated granted scopes; may be empty or absent for a legacy client that asked for none. */
  scope?: string;
  /** Audience (RFC 8707 resource the token was issued for); absent when the client named none. */
  aud?: string;
  /** Issued at / expires at, epoch seconds. The store also expires the record itself. */
  iat: number;
  exp: number;
  grantId: string;
  /** Grant type that issued the token, e.g. 'authorization_code' or 'refresh_token'. */
  gty?: string;
  extra?: Record<string, unknown>;
}

export interface RateHit {
  /** Hits in the current window, including this one. */
  count: number;
  /** Seconds until the window ends and the count starts again at 1 (at least 1). */
  resetInSeconds: number;
}

export interface RecordWithVersions<P extends TokenPayload = TokenPayload> {
  record: Readonly<P> | undefined;
  /** One entry per requested key, in order; 0 for a key never bumped. */
  versions: number[];
}

/** A record of the store, by model and id. */
export interface RecordRef {
  model: string;
  id: string;
}

/**
 * The outcome of `consumeAndUpsertOrRead`: settled (consumed and written), or not, with the record
 * that was read instead in the same atomic step (undefined when it is missing or expired).
 */
export type Settlement = { settled: true } | { settled: false; found: TokenPayload | undefined };

/** One record to write, as `upsert` takes it. */
export interface RecordWrite extends RecordRef {
  payload: TokenPayload;
  expiresInSeconds?: number | undefined;
}

/** What the owner index knows about one user's authorizations of one client (connected apps). */
export interface UserClientGrants {
  clientId: string;
  /** Union of the scopes of the user's live grants of the client (Grant records), sorted. */
  scopes: string[];
  /** Epoch seconds: the oldest live grant (or record) of the user for the client. */
  firstGrantedAt: number;
  /** Epoch seconds: the latest grant, code or token issued to the client for the user. */
  lastIssuedAt: number;
}

export interface TokenStore {
  readonly kind: 'redis' | 'sql';

  /**
   * Stores (replaces) a record. `expiresInSeconds` undefined = no expiry; zero or negative = already
   * expired (never returned). Indexes payload.grantId, payload.uid and payload.userCode when present.
   * A numeric payload.consumed marks the record consumed (oidc-provider re-saving a consumed model).
   */
  upsert(model: string, id: string, payload: TokenPayload, expiresInSeconds?: number): Promise<void>;
  /** The payload, or undefined when missing or expired; carries `consumed` once consumed. */
  find<P extends TokenPayload = TokenPayload>(model: string, id: string): Promise<P | undefined>;
  findByUid<P extends TokenPayload = TokenPayload>(model: string, uid: string): Promise<P | undefined>;
  findByUserCode<P extends TokenPayload = TokenPayload>(
    model: string,
    userCode: string,
  ): Promise<P | undefined>;
  /**
   * Atomically marks the record consumed. True for exactly one caller; false when it was already
   * consumed, is missing or has expired.
   */
  consume(model: string, id: string): Promise<boolean>;
  /**
   * `consume(consume)` and, only when that succeeds, every `upsert` of `writes`, as one atomic step:
   * a token request's single use and the tokens it issues are settled together, in one round trip.
   * False, with nothing written, when the record to consume is missing, expired or already
   * consumed. Without `consume`, just the writes (true).
   */
  consumeAndUpsert(consume: RecordRef | undefined, writes: readonly RecordWrite[]): Promise<boolean>;
  /**
   * `consumeAndUpsert(consume, writes)`, except that when the record cannot be consumed (missing,
   * expired or already consumed) the record `otherwise` is read and returned, in the same atomic
   * step: a record written together with the consumption by the request that won the race is
   * always found by the ones that lost it (the token endpoint's refresh retry window keeps the
   * winner's answer so). Nothing is written unless settled.
   */
  consumeAndUpsertOrRead(
    consume: RecordRef,
    writes: readonly RecordWrite[],
    otherwise: RecordRef,
  ): Promise<Settlement>;
  destroy(model: string, id: string): Promise<void>;
  /** Deletes every record (of any model) whose payload.grantId is `grantId`; returns how many. */
  revokeByGrantId(grantId: string): Promise<number>;

  /**
   * Deletes every record of the user for the client (grants, codes, access and refresh tokens: every
   * record whose payload carries this `accountId` and `clientId`), atomically against concurrent
   * rotations: a rotation settled before it is deleted with it, one settled after it finds its
   * refresh token gone. Returns how many usable tokens ended (records other than `Grant` that were
   * neither consumed nor expired).
   */
  revokeByUserAndClient(accountId: string, clientId: string): Promise<number>;
  /** `revokeByUserAndClient` for every user of the client; returns the sum. */
  revokeByClient(clientId: string): Promise<number>;
  /** `revokeByUserAndClient` for every client of the user; returns the sum. */
  revokeByUser(accountId: string): Promise<number>;
  /** Deletes the records of the account that name no client (its browser Sessions); returns how many. */
  revokeSessionsOfUser(accountId: string): Promise<number>;
  /** The clients the user has live records of, with their grants' scopes and times (connected apps). */
  listGrantsOfUser(accountId: string): Promise<UserClientGrants[]>;

  /** Fixed-window counter, atomic: the first hit opens a window of `windowSeconds`. */
  hit(key: string, windowSeconds: number): Promise<RateHit>;

  /** Increments a version counter (cache invalidation across processes); returns the new value. */
  bumpVersion(key: string): Promise<number>;
  /** Current versions, in order; 0 for keys never bumped. */
  readVersions(keys: readonly string[]): Promise<number[]>;
  /**
   * `find` plus `readVersions` in one round trip to the store (the resource API's read per
   * request). An AccessToken record may be shared between calls (Redis keeps them parsed and
   * frozen): read-only.
   */
  findWithVersions<P extends TokenPayload = TokenPayload>(
    model: string,
    id: string,
    versionKeys: readonly string[],
  ): Promise<RecordWithVersions<P>>;

  /**
   * When this storage first served hashed ids (epoch ms, `HASHED_IDS_MARK`): the first call ever
   * sets it to `now`, every later one (any process, any restart) returns that value unchanged.
   */
  hashingBegan(now: number): Promise<number>;

  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  /** Redis: ends the client it was given. SQL: nothing (the database is closed by its owner). */
  close(): Promise<void>;
  /**
   * SQL only: deletes expired rows (they are never returned anyway); returns how many.
   * Redis expires keys itself and has no such method.
   */
  sweepExpired?(): Promise<number>;
}

const MODEL_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Names of the Redis key spaces beside the records (`<prefix>oidc:<space>:...`): not models. */
const RESERVED_NAMES = new Set(['grant', 'uid', 'userCode', 'consumed', 'idx']);

/** Model names become part of keys: letters, digits and underscores, and none of the key spaces. */
export function assertModelName(model: string): void {
  if (!MODEL_NAME.test(model) || RESERVED_NAMES.has(model))
    throw new TypeError(`invalid token store model name: ${JSON.stringify(model)}`);
}

/** Expiry of an upsert, validated: undefined (no expiry) or a finite number of seconds. */
export function checkExpiresIn(expiresInSeconds: number | undefined): number | undefined {
  if (expiresInSeconds === undefined || expiresInSeconds === null) return undefined;
  if (typeof expiresInSeconds !== 'number' || !Number.isFinite(expiresInSeconds)) {
    throw new TypeError(`invalid expiresIn: ${String(expiresInSeconds)}`);
  }
  return expiresInSeconds;
}

export function checkWindow(windowSeconds: number): number {
  if (!Number.isFinite(windowSeconds) || windowSeconds <= 0)
    throw new TypeError(`invalid rate window: ${windowSeconds}`);
  return windowSeconds;
}

/** Longest account or client id the owner index takes (longer ones are not indexed). */
const MAX_OWNER_ID = 256;

/**
 * The owner of a record for the owner index: `client` when the payload names an account and a
 * client (grants, codes, tokens), `account` when only an account (a browser Session), else none.
 * An account id never contains ':' (it separates the account from the client in index keys).
 */
export function recordOwner(
  payload: TokenPayload,
):
  | { kind: 'client'; accountId: string; clientId: string }
  | { kind: 'account'; accountId: string }
  | undefined {
  const { accountId, clientId } = payload;
  if (!isOwnerId(accountId) || accountId.includes(':')) return undefined;
  if (isOwnerId(clientId)) return { kind: 'client', accountId, clientId };
  return { kind: 'account', accountId };
}

export function isOwnerId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_OWNER_ID;
}

/** A valid account id for the owner index operations (one that could have been indexed). */
export function isIndexedAccountId(value: string): boolean {
  return isOwnerId(value) && !value.includes(':');
}
