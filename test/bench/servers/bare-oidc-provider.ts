import { generateKeyPairSync } from 'node:crypto';
import Provider, { type Adapter } from 'oidc-provider';
import type { Chain } from '../refresh-load.ts';
import { announceReady, closePlain, countServerRequests, listenPlain } from '../pinned/server-side.ts';

/**
 * Baseline server of the token-endpoint benchmark (a process of its own): a bare oidc-provider
 * with static clients and oidc-provider's own in-memory adapter, configured like ours where it
 * matters (ES256, refresh tokens rotating, same TTLs). BENCH_CLIENTS clients (10), each with
 * enough grants for a pool of about 300 refresh-token chains. Counter `bare`.
 *
 * The adapter is oidc-provider's memory adapter class given a store of its own: its default store
 * keeps 1,000 entries (LRU) and, with thousands of grants and tokens, dropped live ones under load
 * (non-2xx answers); a larger LRU of the same class keeps the baseline honest. Not unbounded: it
 * also keeps every consumed token, and with 10M entries long runs filled the 128 MB heap (slower
 * and slower collections, then out of memory after about 120,000 refreshes). 20,000 entries are
 * some 60 times the live set (a grant, its refresh token and access token per chain).
 */

export interface TokenServerReady {
  url: string;
  /** The token endpoint's path. */
  path: string;
  /** Live refresh-token chains, one per grant. */
  pool: Chain[];
  backend: string;
}

const SCOPE = 'PROFILE_READ';
const clientCount = Number(process.env.BENCH_CLIENTS ?? 10);
const grantsPerClient = Math.max(1, Math.ceil(300 / clientCount));

// oidc-provider's memory adapter and LRU are not in its typings: imported by path, typed here.
type AdapterClass = new (model: string, store: unknown) => Adapter;
const adapterPath: string = 'oidc-provider/lib/adapters/memory_adapter.js';
const lruPath: string = 'oidc-provider/lib/helpers/lru.js';
const { default: MemoryAdapter } = (await import(adapterPath)) as { default: AdapterClass };
const { default: LRU } = (await import(lruPath)) as {
  default: new (options: { maxSize: number }) => unknown;
};
const store = new LRU({ maxSize: 20_000 }) as { set(key: string, value: unknown, options?: unknown): void };
// The adapter also keeps, per grant, a Map of every token key issued under it until that token
// expires (for revokeByGrantId), and recomputes its latest expiry on each write: with rotating
// refresh tokens that Map grows by two keys per refresh, and the baseline's CPU per request rose
// by 70% over an 11-round run (CPU per request is meant to be the steady state). Each grant keeps
// its latest 8 keys here: the live access and refresh tokens and a few consumed ones.
const GRANT_KEYS_KEPT = 8;
const setInStore = store.set.bind(store);
store.set = (key, value, options) => {
  if (key.startsWith('grant:') && value instanceof Map) {
    for (const member of value.keys()) {
      if (value.size <= GRANT_KEYS_KEPT) break;
      value.delete(member);
    }
  }
  setInStore(key, value, options);
};

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const clients = Array.from({ length: clientCount }, (_, i) => ({
  client_id: `bare-client-${i}`,
  client_secret: `bare-secret-${i}-0123456789abcdefghijklmnopqrstuvwxyz`,
  redirect_uris: ['https://bare.example.com/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code' as const],
  id_token_signed_response_alg: 'ES256' as const,
}));

const { server, url } = await listenPlain(() => {});
server.removeAllListeners('request');
const provider = new Provider(url, {
  adapter: (model: string) => new MemoryAdapter(model, store),
  clients,
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' }] },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  features: { devInteractions: { enabled: false }, resourceIndicators: { enabled: false } },
  responseTypes: ['code'],
  scopes: [SCOPE],
  rotateRefreshToken: true,
  issueRefreshToken: async () => true,
  expiresWithSession: async () => false,
  ttl: {
    AccessToken: 1800,
    AuthorizationCode: 60,
    RefreshToken: 30 * 86400,
    Grant: 365 * 86400,
    Interaction: 3600,
    Session: 14 * 86400,
  },
});
server.on('request', provider.callback());
countServerRequests('bare', server);

const pool: Chain[] = [];
for (const metadata of clients) {
  const client = await provider.Client.find(metadata.client_id);
  for (let g = 0; g < grantsPerClient; g++) {
    const grant = new provider.Grant({ accountId: '1', clientId: metadata.client_id });
    grant.addOIDCScope(SCOPE);
    const grantId = await grant.save();
    const refreshToken = new provider.RefreshToken({
      accountId: '1',
      client: client!,
      grantId,
      scope: SCOPE,
      gty: 'authorization_code',
      expiresWithSession: false,
      rotations: 0,
    });
    pool.push({
      clientId: metadata.client_id,
      secret: metadata.client_secret,
      refreshToken: await refreshToken.save(),
    });
  }
}

const ready: TokenServerReady = {
  url,
  path: '/token',
  pool,
  backend: 'memory adapter (LRU of 20,000 entries)',
};
announceReady(ready, () => closePlain(server));
