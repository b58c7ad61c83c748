import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import Provider from 'oidc-provider';
import { insertClient, insertUser } from '../../support/factories.ts';
import { FlowBrowser, issueTokens } from '../../support/oauth.ts';
import { startTestSystem } from '../../support/system.ts';
import type { Chain } from '../refresh-load.ts';

/**
 * The servers of the token-endpoint benchmark (refresh_token grant with rotation), in a process of
 * their own so the load generator (another process, on another CPU when pinned) does not share
 * their event loop:
 * - ours: the whole system as tests start it (Postgres + Redis when DATABASE_URL / REDIS_URL are
 *   set, PGlite and the SQL token store otherwise), with BENCH_CLIENTS approved confidential
 *   clients and grants obtained through the real authorization flow;
 * - bare: oidc-provider with its in-memory adapter and the same number of static clients,
 *   configured like ours where it matters (rotation, lifetimes, ES256).
 * Each side gets at least BENCH_CHAINS refresh-token chains (spread over all clients), sent to the
 * parent in the ready message; the load generator rotates them (refresh-load.ts).
 *
 * Messages, as the membership-read server's: sends `{type: 'ready', ...}`; answers `{type: 'stats'}`
 * with `{type: 'stats', ...}`; `{type: 'close'}` drops the fixtures and exits. Run directly
 * (`./node_modules/.bin/node test/bench/servers/token-endpoint.ts`) it writes the ready message as
 * JSON to BENCH_READY_FILE (or stdout) and stays up until SIGINT / SIGTERM: for `--cpu-prof`,
 * `--heap-prof` or callgrind.
 */

export interface ReadyMessage {
  type: 'ready';
  backend: string;
  clients: number;
  ours: { url: string; path: string; pool: Chain[] };
  bare: { url: string; path: string; pool: Chain[] };
}

export type ServerKey = 'ours' | 'bare';

export interface StatsMessage {
  type: 'stats';
  requests: Record<ServerKey, number>;
  /** process.cpuUsage() of this process, microseconds. */
  cpuUs: number;
  elu: { idle: number; active: number };
  /** Bytes allocated on the JS heap so far (growth of the used heap between collections, summed). */
  allocatedBytes: number;
}

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 10);
const CHAINS = Math.max(CLIENTS, Number(process.env.BENCH_CHAINS ?? 200));
const GRANTS_PER_CLIENT = Math.ceil(CHAINS / CLIENTS);
const SCOPE = 'PROFILE_READ';

const counts: Record<ServerKey, number> = { ours: 0, bare: 0 };
const counted =
  (key: ServerKey, handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse) => {
    counts[key]++;
    handler(req, res);
  };

// Rate limits stay on (their store round trip is part of a refresh), high enough never to refuse.
const system = await startTestSystem({
  RATE_LIMITS: 'token=100000000/1m',
  LOG_LEVEL: 'info',
  // As the membership-read server: the access log's cost is measured apart (ACCESS_LOG=true).
  ACCESS_LOG: process.env.ACCESS_LOG ?? 'false',
});
const knex = system.stores.db.knex;
const user = await insertUser(knex);
const browser = new FlowBrowser(system.url);
const ourPool: Chain[] = [];
for (let i = 0; i < CLIENTS; i++) {
  const client = await insertClient(knex, { scopes: [SCOPE], ownerUserId: user.id, name: `Bench App ${i}` });
  for (let g = 0; g < GRANTS_PER_CLIENT; g++) {
    const tokens = await issueTokens(system.url, client, user, [SCOPE], browser);
    ourPool.push({ clientId: client.client.id, secret: client.secret!, refreshToken: tokens.refresh_token });
  }
}
// Ours is measured behind a plain server that counts its requests, like the bare one.
const oursHandler = system.server.server.listeners('request')[0] as (
  req: IncomingMessage,
  res: ServerResponse,
) => void;
system.server.server.removeAllListeners('request');
system.server.server.on('request', counted('ours', oursHandler));

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const bareClients = Array.from({ length: CLIENTS }, (_, i) => ({
  client_id: `bare-client-${i}`,
  client_secret: `bare-secret-${i}-0123456789abcdefghijklmnopqrstuvwxyz`,
  redirect_uris: ['https://bare.example.com/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code' as const],
  id_token_signed_response_alg: 'ES256' as const,
}));
const bareServer: Server = createServer();
bareServer.keepAliveTimeout = system.server.server.keepAliveTimeout;
await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;
const provider = new Provider(bareUrl, {
  // No adapter: oidc-provider's own in-memory one (it prints a warning saying so).
  clients: bareClients,
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
bareServer.on('request', counted('bare', provider.callback()));
const barePool: Chain[] = [];
for (const metadata of bareClients) {
  const client = await provider.Client.find(metadata.client_id);
  for (let g = 0; g < GRANTS_PER_CLIENT; g++) {
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
    barePool.push({
      clientId: metadata.client_id,
      secret: metadata.client_secret,
      refreshToken: await refreshToken.save(),
    });
  }
}

const ready: ReadyMessage = {
  type: 'ready',
  backend: `${system.stores.db.kind} + ${system.stores.tokenStore.kind} token store`,
  clients: CLIENTS,
  ours: { url: system.url, path: '/v2/auth/oauth2/token', pool: ourPool },
  bare: { url: bareUrl, path: '/token', pool: barePool },
};

/**
 * Allocation: the used heap only grows between collections, so allocated = the growth before
 * each collection (GCProfiler reports the heap before and after each one) plus the growth since.
 */
let allocatedBytes = 0;
let usedAfterLastGc = getHeapStatistics().used_heap_size;
let gcProfiler = new GCProfiler();
gcProfiler.start();
function countAllocation(): void {
  const report = gcProfiler.stop();
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  for (const gc of report?.statistics ?? []) {
    allocatedBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - usedAfterLastGc);
    usedAfterLastGc = gc.afterGC.heapStatistics.usedHeapSize;
  }
  const used = getHeapStatistics().used_heap_size;
  allocatedBytes += Math.max(0, used - usedAfterLastGc);
  usedAfterLastGc = used;
}

function stats(): StatsMessage {
  countAllocation();
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  return {
    type: 'stats',
    requests: { ...counts },
    cpuUs: cpu.user + cpu.system,
    elu: { idle: elu.idle, active: elu.active },
    allocatedBytes,
  };
}

let closing = false;
async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  await new Promise<void>((resolve) => bareServer.close(() => resolve()));
  bareServer.closeAllConnections();
  await system.close();
  process.exit(0);
}

if (process.send) {
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stats') process.send!(stats());
    if (message.type === 'close') void close();
  });
  process.send(ready);
} else {
  const { writeFileSync } = await import('node:fs');
  const file = process.env.BENCH_READY_FILE;
  if (file) writeFileSync(file, JSON.stringify(ready));
  else console.log(JSON.stringify(ready));
  // Stats on SIGUSR2 (to stderr), for runs under a profiler.
  process.on('SIGUSR2', () => console.error(JSON.stringify(stats())));
}
process.on('SIGINT', () => void close());
process.on('SIGTERM', () => void close());
