import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import Provider from 'oidc-provider';
import { FlowBrowser, issueTokens } from '../../support/oauth.ts';
import { startTestSystem } from '../../support/system.ts';
import { choosePinning } from '../load.ts';
import { type Measurement, printRatio, printTable } from '../measure.ts';
import { startPrivateRedis } from '../private-redis.ts';
import { type Chain, type Clock, failures, rotatingRefreshRequests } from '../refresh-load.ts';
import { insertClient, insertUser } from '../../support/factories.ts';

/**
 * refresh_token grant at 50 connections: our token endpoint (JSON/form parsing, contract checks,
 * rate limit, clients from the database, token store in Redis or SQL) against a bare oidc-provider
 * with its in-memory adapter, measured in the same run. Refresh tokens rotate, so every request
 * takes a live token from a shared pool and puts the one it receives back.
 *
 * Backends follow the environment: DATABASE_URL / REDIS_URL for the real servers, else PGlite and
 * the SQL token store (the embedded default).
 */

const CONNECTIONS = 50;
const CLIENTS = 70;
/** Chains in flight at a connection error are lost; keep plenty. */
const GRANTS_PER_CLIENT = 4;
const SCOPE = 'PROFILE_READ';
/**
 * Rounds are counted in requests, not seconds: autocannon then ends each connection after its last
 * answer, so no refresh token is lost in flight between rounds. The two servers are measured in
 * alternating rounds, so load from elsewhere on the machine hits both alike.
 */
const ROUNDS = 4;
const ROUND_REQUESTS = 6_000;
/**
 * Both sides still get faster after thousands of requests (JIT), ours longer than the bare one:
 * with 2,000 our first round was the slowest of the run. 16,000 per side keeps every client under
 * its rate limit (1,200 a minute) for the whole run.
 */
const WARMUP_REQUESTS = 16_000;

interface Target {
  label: string;
  url: string;
  path: string;
  pool: Chain[];
}

/**
 * One round. Throughput is the answers divided by the time from start to the last answer
 * (autocannon's own figures are per whole second, too coarse for rounds of a few seconds).
 */
/** Process CPU time per answer (server and load generator share this process), per target label. */
const cpuPerAnswer = new Map<string, number[]>();

async function measureOnce(target: Target, label: string, amount: number): Promise<Measurement> {
  const cpuBefore = process.cpuUsage();
  const clock: Clock = { started: performance.now(), lastAnswer: 0, answers: 0 };
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    amount,
    requests: rotatingRefreshRequests(target.pool, target.path, clock),
  });
  const seconds = (clock.lastAnswer - clock.started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const perAnswer = cpuPerAnswer.get(target.label) ?? [];
  perAnswer.push((cpu.user + cpu.system) / clock.answers);
  cpuPerAnswer.set(target.label, perAnswer);
  return {
    label,
    requestsPerSecond: Math.round(clock.answers / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Mean throughput and median latencies of a target's rounds. */
function summary(label: string, rounds: Measurement[]): Measurement {
  return {
    label,
    requestsPerSecond: Math.round(rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rounds.length),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** Our whole system, with grants obtained through the real authorization flow. */
async function prepareOurs() {
  const system = await startTestSystem();
  const knex = system.stores.db.knex;
  const user = await insertUser(knex);
  const browser = new FlowBrowser(system.url);
  const pool: Chain[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const client = await insertClient(knex, { scopes: [SCOPE] });
    for (let g = 0; g < GRANTS_PER_CLIENT; g++) {
      const tokens = await issueTokens(system.url, client, user, [SCOPE], browser);
      pool.push({ clientId: client.client.id, secret: client.secret!, refreshToken: tokens.refresh_token });
    }
  }
  const backend = `${system.stores.db.kind} + ${system.stores.tokenStore.kind} token store`;
  return { url: system.url, pool, backend, close: () => system.close() };
}

/** A bare oidc-provider (in-memory adapter, static clients) configured like ours where it matters. */
async function prepareBare() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const clients = Array.from({ length: CLIENTS }, (_, i) => ({
    client_id: `bare-client-${i}`,
    client_secret: `bare-secret-${i}-0123456789abcdefghijklmnopqrstuvwxyz`,
    redirect_uris: ['https://bare.example.com/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code' as const],
    id_token_signed_response_alg: 'ES256' as const,
  }));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(url, {
    // No adapter: oidc-provider's own in-memory one (it prints a warning saying so).
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

  const pool: Chain[] = [];
  for (const metadata of clients) {
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
      pool.push({
        clientId: metadata.client_id,
        secret: metadata.client_secret,
        refreshToken: await refreshToken.save(),
      });
    }
  }
  return { url, pool, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Pins every thread of this process to `cpus` (taskset), returning the undo (the list it had). */
function pinThisProcess(cpus: string): () => void {
  const pid = String(process.pid);
  const shown = execFileSync('taskset', ['-c', '-p', pid], { encoding: 'utf8' });
  const before = /list:\s*(\S+)/.exec(shown)?.[1] ?? `0-${availableParallelism() - 1}`;
  const set = (list: string) => execFileSync('taskset', ['-a', '-p', '-c', list, pid], { stdio: 'ignore' });
  set(cpus);
  return () => set(before);
}

/** Runs `body` with REDIS_URL set to `url` (when given), restoring it after. */
async function withRedisUrl<T>(url: string | undefined, body: () => Promise<T>): Promise<T> {
  if (url === undefined) return body();
  const before = process.env.REDIS_URL;
  process.env.REDIS_URL = url;
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = before;
  }
}

export async function run(): Promise<void> {
  const pinning = choosePinning();
  const privateRedis = await startPrivateRedis(pinning);
  const unpin = pinning ? pinThisProcess(pinning.servers) : () => {};
  try {
    const redis = privateRedis
      ? `the benchmark's own redis-server, pinned to CPU ${pinning?.generator}`
      : process.env.REDIS_URL
        ? 'REDIS_URL as given'
        : 'none (SQL token store)';
    console.log(
      pinning
        ? `servers and autocannon pinned to CPU ${pinning.servers}; Redis: ${redis}`
        : `not pinned (BENCH_PIN=0, one CPU, or no taskset); Redis: ${redis}`,
    );
    await measureBoth(await withRedisUrl(privateRedis?.url, prepareOurs));
  } finally {
    privateRedis?.stop();
    unpin();
  }
}

async function measureBoth(ours: Awaited<ReturnType<typeof prepareOurs>>): Promise<void> {
  const bare = await prepareBare().catch(async (error: unknown) => {
    await ours.close();
    throw error;
  });
  try {
    console.log(
      `refresh_token grant, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_REQUESTS} requests; ours on ${ours.backend}`,
    );
    const bareTarget: Target = {
      label: 'bare oidc-provider (memory adapter)',
      url: bare.url,
      path: '/token',
      pool: bare.pool,
    };
    const ourTarget: Target = {
      label: 'our token endpoint',
      url: ours.url,
      path: '/v2/auth/oauth2/token',
      pool: ours.pool,
    };
    await measureOnce(bareTarget, 'warm-up', WARMUP_REQUESTS);
    await measureOnce(ourTarget, 'warm-up', WARMUP_REQUESTS);
    cpuPerAnswer.clear();
    const rounds = { bare: [] as Measurement[], ours: [] as Measurement[] };
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
      for (const side of order) {
        const target = side === 'bare' ? bareTarget : ourTarget;
        rounds[side].push(await measureOnce(target, `${target.label}, round ${round}`, ROUND_REQUESTS));
      }
    }
    const bareResult = summary('bare oidc-provider (memory adapter): mean', rounds.bare);
    const ourResult = summary('our token endpoint: mean', rounds.ours);
    printTable([...rounds.bare, ...rounds.ours, bareResult, ourResult]);
    printRatio(
      'our throughput vs the bare provider',
      ourResult.requestsPerSecond,
      bareResult.requestsPerSecond,
      '>= 80%',
    );
    const cpuBare = median(cpuPerAnswer.get(bareTarget.label)!);
    const cpuOurs = median(cpuPerAnswer.get(ourTarget.label)!);
    console.log(
      `CPU per request in this process (load generator included), median of rounds: bare ${Math.round(cpuBare)} µs, ours ${Math.round(cpuOurs)} µs`,
    );
    printRatio(
      'the same comparison by CPU cost (bare / ours), less sensitive to other load',
      cpuBare,
      cpuOurs,
      '>= 80%',
    );
    if (ours.backend.startsWith('pglite')) {
      console.log(
        'note: the embedded default keeps tokens in PGlite (one in-process connection, a few ms per refresh);',
        'run with DATABASE_URL and REDIS_URL for the production comparison.',
      );
    }
    console.log(
      "(the bare provider's non-2xx: its in-memory LRU keeps 1000 entries and drops grants under this load)",
    );
    for (const [body, count] of failures) console.log(`unexpected answer (${count}x): ${body.slice(0, 200)}`);
    if (ourResult.non2xx > 0 || ourResult.errors > 0) {
      console.log(`warning: ${ourResult.non2xx} non-2xx answers and ${ourResult.errors} errors on our side`);
    }
  } finally {
    await bare.close();
    await ours.close();
  }
}
