import type { RecordRef, RecordWrite, TokenPayload, TokenStore } from '@sched/db/token-store/types';
import Provider, { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { type ClientLoader, clientMetadata } from './clients.ts';
import { withoutInternalScopes } from './scopes.ts';

/**
 * oidc-provider's persistence over the token store (docs/token-store.md): one adapter per model
 * name, records found by the model and the token value (the store keeps only its hash,
 * docs/token-store.md "Hashed ids"), which is what lets the resource API read an access token by
 * its value. Clients are not stored here: they come from the database.
 */

const PREFETCHED = 'prefetchedRecord';

/**
 * Hands oidc-provider a record the request has already read (for instance the refresh token,
 * read together with the client's version in one round trip). Used once, by the next `find` of
 * that model and id within the same request.
 */
export function prefetched(
  state: Record<string, unknown>,
  model: string,
  id: string,
  payload: unknown,
): void {
  state[PREFETCHED] = { model, id, payload };
}

function takePrefetched(model: string, id: string): { payload: AdapterPayload | undefined } | undefined {
  const state = Provider.ctx?.state as Record<string, unknown> | undefined;
  const entry = state?.[PREFETCHED] as
    | { model: string; id: string; payload: AdapterPayload | undefined }
    | undefined;
  if (!state || !entry || entry.model !== model || entry.id !== id) return undefined;
  delete state[PREFETCHED];
  return { payload: entry.payload };
}

const DEFERRED = 'deferredTokenWrites';
const DEFERRABLE = new Set(['AccessToken', 'RefreshToken']);

/** What a token request settles at its end: the code or refresh token it uses, the tokens it issues. */
export interface DeferredWrites {
  consume: RecordRef | undefined;
  writes: RecordWrite[];
}

function deferred(): DeferredWrites | undefined {
  return (Provider.ctx?.state as Record<string, unknown> | undefined)?.[DEFERRED] as
    | DeferredWrites
    | undefined;
}

/**
 * From now on in this request, the consumption of the code or refresh token and the new access and
 * refresh tokens are not written one by one as oidc-provider asks, but together (`takeTokenWrites`)
 * in one atomic step of the store, which the token endpoint awaits before it
 * answers: nothing is issued that is not stored, nothing is stored for a request that lost the
 * race for single use, and the request costs one round trip to the store instead of three.
 */
export function deferTokenWrites(state: Record<string, unknown>): void {
  state[DEFERRED] = { consume: undefined, writes: [] } satisfies DeferredWrites;
}

/**
 * What the request deferred, for the token endpoint to settle (`consumeAndUpsert`, or
 * `consumeAndUpsertOrRead` with a retry window), and the end of deferring: later writes go
 * through at once.
 */
export function takeTokenWrites(state: Record<string, unknown>): DeferredWrites {
  const pending = state[DEFERRED] as DeferredWrites | undefined;
  delete state[DEFERRED];
  return pending ?? { consume: undefined, writes: [] };
}

/**
 * oidc-provider ids (nanoid) are base64url, grants' and their tokens' with a '.' and the grant's
 * hash tag (token-ids.ts); anything else cannot exist and never reaches the store.
 */
const STORED_ID = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?$/;
export const wellFormed = (id: unknown): id is string =>
  typeof id === 'string' && id.length <= 256 && STORED_ID.test(id);

/**
 * Grants are written once (when the user allows an authorization) and never changed, only
 * destroyed on revocation, which also deletes every code and token of the grant. Every use of a
 * grant starts from one of those (read fresh from the store), so a per-process copy of grant
 * records is safe and saves a round trip per token request. Entries live 10 minutes at most.
 */
class GrantCache {
  readonly entries = new Map<string, { json: string; until: number }>();
  static readonly MAX_AGE_MS = 10 * 60_000;
  static readonly MAX_ENTRIES = 10_000;

  get(id: string): AdapterPayload | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return JSON.parse(entry.json) as AdapterPayload;
  }

  set(id: string, payload: AdapterPayload, expiresIn: number | undefined): void {
    const lifetime =
      expiresIn === undefined ? GrantCache.MAX_AGE_MS : Math.min(expiresIn * 1000, GrantCache.MAX_AGE_MS);
    this.entries.delete(id);
    if (lifetime <= 0) return;
    this.entries.set(id, { json: JSON.stringify(payload), until: Date.now() + lifetime });
    if (this.entries.size > GrantCache.MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(id: string): void {
    this.entries.delete(id);
  }
}

/** The refusal of a code or refresh token that another request consumed first. */
function alreadyConsumed(model: string): InstanceType<typeof errors.InvalidGrant> {
  return new errors.InvalidGrant(
    model === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed',
  );
}

class TokenStoreAdapter implements Adapter {
  readonly name: string;
  readonly store: TokenStore;
  readonly cache: GrantCache | undefined;

  constructor(store: TokenStore, name: string) {
    this.store = store;
    this.name = name;
    this.cache = name === 'Grant' ? new GrantCache() : undefined;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    // The resource API reads access tokens: keep the internal no-scope marker out of their scope.
    const stored =
      this.name === 'AccessToken' && typeof payload.scope === 'string'
        ? { ...payload, scope: withoutInternalScopes(payload.scope) }
        : payload;
    this.cache?.set(id, payload, expiresIn);
    const pending = DEFERRABLE.has(this.name) ? deferred() : undefined;
    if (pending)
      pending.writes.push({
        model: this.name,
        id,
        payload: stored as TokenPayload,
        expiresInSeconds: expiresIn,
      });
    else await this.store.upsert(this.name, id, stored as TokenPayload, expiresIn);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (!wellFormed(id)) return undefined;
    const early = takePrefetched(this.name, id);
    if (early) return early.payload;
    const cached = this.cache?.get(id);
    if (cached) return cached;
    const found = (await this.store.find(this.name, id)) as AdapterPayload | undefined;
    if (found && this.cache && typeof found.exp === 'number') {
      this.cache.set(id, found, found.exp - Math.floor(Date.now() / 1000));
    }
    return found;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (!wellFormed(uid)) return undefined;
    return (await this.store.findByUid(this.name, uid)) as AdapterPayload | undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    if (typeof userCode !== 'string' || userCode.length > 256) return undefined;
    return (await this.store.findByUserCode(this.name, userCode)) as AdapterPayload | undefined;
  }

  /**
   * oidc-provider decides single use from the `consumed` it read earlier, so two concurrent requests
   * could both pass; the store's consume is atomic. In a token request the consumption waits for
   * the tokens the request issues and is settled with them (`takeTokenWrites`): the loser stores
   * nothing and is refused there. Elsewhere it happens at once, and the loser is refused here. A
   * concurrent loser does not revoke the grant (the winner's tokens stay valid); a later,
   * sequential replay is seen by oidc-provider itself and revokes everything of the grant.
   */
  async consume(id: string): Promise<void> {
    const pending = deferred();
    if (pending && !pending.consume) {
      pending.consume = { model: this.name, id };
      return;
    }
    if (!(await this.store.consume(this.name, id))) throw alreadyConsumed(this.name);
  }

  async destroy(id: string): Promise<void> {
    if (!wellFormed(id)) return;
    this.cache?.delete(id);
    await this.store.destroy(this.name, id);
  }

  /** The store deletes every model of the grant at once; oidc-provider calls this per model. */
  async revokeByGrantId(grantId: string): Promise<void> {
    if (!wellFormed(grantId)) return;
    await this.store.revokeByGrantId(grantId);
  }
}

/** What a dynamic client registration (RFC 7591) stores: agents/registration.ts. */
export type RecordRegisteredClient = (clientId: string, metadata: AdapterPayload) => Promise<void>;

/**
 * Clients come from the database, shared with the request's own checks. oidc-provider's
 * `Client.find` comes here only for ids our directory does not build (client-instances.ts): an
 * agent known by its metadata document is not handed over from its row, so oidc-provider resolves
 * it from the document itself (its cache, or a fetch), which stays authoritative. The only write
 * is a dynamic registration, when it is on.
 */
class DatabaseClientAdapter implements Adapter {
  readonly load: ClientLoader;
  readonly register: RecordRegisteredClient | undefined;

  constructor(load: ClientLoader, register: RecordRegisteredClient | undefined) {
    this.load = load;
    this.register = register;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const state = Provider.ctx?.state as Record<string, unknown> | undefined;
    const client = await this.load(state, id);
    if (!client || client.registration === 'metadata_document') return undefined;
    return clientMetadata(client) as AdapterPayload;
  }

  async upsert(id: string, payload: AdapterPayload): Promise<void> {
    if (!this.register) throw new Error('clients are managed in the database, not through oidc-provider');
    await this.register(id, payload);
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/** The `adapter` of the provider configuration: a factory called once per model name. */
export function adapterFactory(
  store: TokenStore,
  loadClient: ClientLoader,
  register?: RecordRegisteredClient,
): (name: string) => Adapter {
  return (name) =>
    name === 'Client' ? new DatabaseClientAdapter(loadClient, register) : new TokenStoreAdapter(store, name);
}
