import { timingSafeEqual } from 'node:crypto';
import { sha256Bytes } from '@sched/kit/secrets';
import {
  clientVersionKey,
  findOAuthClientWithSecrets,
  type OAuthClientWithSecrets,
} from '@sched/db/queries/oauth-clients';
import type { TokenStore } from '@sched/db/token-store/types';
import { isAgentRegistration, isLoopbackRedirect } from '@sched/policy/agent-clients';
import type { Knex } from 'knex';

/**
 * Clients, cached per process and checked against their token-store version (`client:<id>`) on
 * every request that uses one: an edit, a new or revoked secret, or a review decision bumps the
 * version (see @sched/db/queries/oauth-clients), and the next request anywhere reloads the row.
 * The version usually arrives with a read the request makes anyway (the refresh token's, through
 * `findWithVersions`), so a cached client costs no extra round trip. Within one request the client
 * is resolved once and shared, through `ctx.state`, by our checks and oidc-provider.
 */
export type ClientLoader = (
  state: Record<string, unknown> | undefined,
  clientId: string,
) => Promise<OAuthClientWithSecrets | null>;

/** A safety net only: entries are reloaded this often even if a writer forgot to bump the version. */
const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 10_000;
const MEMO = 'oauthClients';

interface Entry {
  client: OAuthClientWithSecrets;
  version: number;
  loadedAt: number;
}

export class ClientDirectory {
  readonly knex: Knex;
  readonly store: TokenStore;
  readonly cache = new Map<string, Entry>();

  constructor(knex: Knex, store: TokenStore) {
    this.knex = knex;
    this.store = store;
  }

  /** The client as of `version` (read from the token store beforehand): cached, or from the database. */
  async atVersion(clientId: string, version: number): Promise<OAuthClientWithSecrets | null> {
    const cached = this.cache.get(clientId);
    if (cached && cached.version === version && Date.now() - cached.loadedAt < MAX_AGE_MS)
      return cached.client;
    const client = await findOAuthClientWithSecrets(this.knex, clientId);
    this.cache.delete(clientId);
    if (!client) return null;
    // Tagged with the version read before loading: a change after that read bumps past it.
    this.cache.set(clientId, { client, version, loadedAt: Date.now() });
    if (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return client;
  }

  /** The current client (one token-store read for the version, the database only on a change). */
  async current(clientId: string): Promise<OAuthClientWithSecrets | null> {
    const [version = 0] = await this.store.readVersions([clientVersionKey(clientId)]);
    return this.atVersion(clientId, version);
  }

  /** Resolves the client once per request (`state` is the request's ctx.state). */
  readonly load: ClientLoader = (state, clientId) => {
    if (!state) return this.current(clientId);
    const memo = requestMemo(state);
    let loading = memo.get(clientId);
    if (!loading) {
      loading = this.current(clientId);
      memo.set(clientId, loading);
    }
    return loading;
  };

  /** The client again, after this request changed it (its version was bumped by the write). */
  reload(
    state: Record<string, unknown> | undefined,
    clientId: string,
  ): Promise<OAuthClientWithSecrets | null> {
    if (state) requestMemo(state).delete(clientId);
    return this.load(state, clientId);
  }

  /** Records how the request resolved the client (when its version came with another read). */
  remember(
    state: Record<string, unknown>,
    clientId: string,
    version: number,
  ): Promise<OAuthClientWithSecrets | null> {
    const loading = this.atVersion(clientId, version);
    requestMemo(state).set(clientId, loading);
    return loading;
  }
}

function requestMemo(state: Record<string, unknown>): Map<string, Promise<OAuthClientWithSecrets | null>> {
  let memo = state[MEMO] as Map<string, Promise<OAuthClientWithSecrets | null>> | undefined;
  if (!memo) {
    memo = new Map();
    state[MEMO] = memo;
  }
  return memo;
}

/**
 * True when `presented` is one of the active secrets. Compares the presented secret's SHA-256 with
 * every stored hash in constant time (fixed-length digests, no early exit, so timing tells neither
 * how much matched nor which secret did).
 */
export function secretMatches(presented: string, activeSecretHashes: readonly string[]): boolean {
  const presentedDigest = sha256Bytes(presented);
  let matched = false;
  for (const hash of activeSecretHashes) {
    const stored = Buffer.from(hash, 'hex');
    matched =
      (stored.length === presentedDigest.length && timingSafeEqual(stored, presentedDigest)) || matched;
  }
  return matched;
}

/**
 * An agent whose redirect URIs go to this computer only, or use a private-use scheme
 * (`com.example.agent:/cb`), is a native app (RFC 8252), as when it registered
 * (agent-options.ts): its scheme URIs are kept, which a web client could not hold.
 */
function isNativeRedirects(uris: readonly string[]): boolean {
  return !uris.every((uri) => /^https?:/i.test(uri)) || uris.every(isLoopbackRedirect);
}

/** Redirect URIs oidc-provider can hold for a web client; others could never match a request anyway. */
function usableRedirectUris(uris: readonly string[]): string[] {
  return uris.filter((uri) => {
    const parsed = URL.parse(uri);
    return (
      parsed !== null && (parsed.protocol === 'https:' || parsed.protocol === 'http:') && !uri.includes('#')
    );
  });
}

/**
 * The oidc-provider view of a client. Confidential clients authenticate with client_secret_basic or
 * client_secret_post against `secret_hashes` (see `compareClientSecret` in create.ts); the
 * `client_secret` member only satisfies the library's schema and is never compared.
 */
export function clientMetadata(client: OAuthClientWithSecrets): Record<string, unknown> {
  const confidential = client.clientType === 'confidential';
  const native = isAgentRegistration(client.registration) && isNativeRedirects(client.redirectUris);
  return {
    client_id: client.id,
    client_name: client.name,
    application_type: native ? 'native' : 'web',
    redirect_uris: native ? client.redirectUris : usableRedirectUris(client.redirectUris),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    ...(confidential ? { client_secret: `hashed-secrets:${client.id}` } : {}),
    secret_hashes: confidential ? client.activeSecretHashes : [],
  };
}
