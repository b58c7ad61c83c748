import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { redisMonitor } from '@sched/db/availability';
import { type Database, openDatabase } from '@sched/db/connection';
import { openRedis } from '@sched/db/redis';
import type { Stores } from '@sched/db/stores';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { loadConfig } from '@sched/kit/config';
import { type RunningServer, startServiceServer } from '@sched/kit/http/server';
import { createLogger } from '@sched/kit/logger';
import { composeSystem } from '@sched/launcher/compose';
import test, { type ExecutionContext } from 'ava';
import type { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertClient, insertUser, type TestClient, type TestUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { clientCredentials, issueTokens, tokenRequest } from '../support/oauth.ts';
import { freePort } from '../support/process.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

/**
 * README "When Postgres or Redis is down": a back end that is down is a 503: `ServiceUnavailable`
 * in the API envelope, `temporarily_unavailable` on OAuth endpoints, with `Retry-After`, answered
 * within one second (no waiting on retries), logged once per outage, not once per request. The
 * system reaches the machine's Postgres and Redis through TCP proxies this file cuts and restores
 * (the shared servers themselves are never touched); after each outage the same requests succeed
 * without a restart. Real servers only: skipped without DATABASE_URL and REDIS_URL.
 */

const realServers = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const serial = realServers ? test.serial : test.serial.skip;

/** The documented bound; what is measured is the answer of a request sent during the outage. */
const ONE_SECOND = 1000;

interface LogLine {
  level: number;
  msg: string;
  backend?: string;
}

let database: TestDatabase;
let db: Database;
let redis: Redis;
let server: RunningServer;
let dataDir: string;
let dbProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let redisProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let user: TestUser;
let app: TestClient;
let refreshToken: string;
let accessToken: string;
const lines: LogLine[] = [];
let url = '';
const call = apiClient(() => url);

function viaProxy(target: string, port: number): string {
  const parsed = new URL(target);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}

test.before(async () => {
  if (!realServers) return;
  database = await createTestDatabase();
  const databaseUrl = new URL(database.url!);
  dbProxy = await startTcpProxy(databaseUrl.hostname, Number(databaseUrl.port || 5432));
  const redisUrl = new URL(process.env.REDIS_URL!);
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));

  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger = createLogger({ level: 'info' }, destination);
  db = await openDatabase({ url: viaProxy(database.url!, dbProxy.port), poolMax: 4 });
  db.availability!.log = logger;
  redis = await openRedis(viaProxy(process.env.REDIS_URL!, redisProxy.port), { outageLog: logger });
  const tokenStore = createRedisTokenStore({ redis, prefix: `test:${randomBytes(6).toString('hex')}:` });
  const stores: Stores = {
    db,
    tokenStore,
    redis,
    checks: [
      { name: 'database', check: () => db.ping() },
      { name: 'redis', check: () => tokenStore.ping() },
    ],
    close: async () => {},
  };
  const port = await freePort();
  dataDir = await mkdtemp(join(tmpdir(), 'sched-test-outages-'));
  const config = loadConfig({
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    COOKIE_KEYS: 'test-cookie-key-0123456789abcdefghijklmnop',
    ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
    DATABASE_URL: database.url!,
    REDIS_URL: process.env.REDIS_URL!,
  });
  const service = await composeSystem(config, logger, { stores });
  server = await startServiceServer({
    name: 'test',
    port,
    host: '127.0.0.1',
    logger,
    handler: service.handler,
    checks: service.checks,
    onClose: service.onClose,
    shutdownTimeoutMs: 2000,
  });
  url = server.url;
  user = await insertUser(db.knex);
  app = await insertClient(db.knex, { scopes: ['PROFILE_READ'] });
  const tokens = await issueTokens(url, app, user);
  refreshToken = tokens.refresh_token;
  accessToken = tokens.access_token;
});

test.after.always(async () => {
  if (!realServers) return;
  await server?.close();
  await redisMonitorReset();
  redis?.disconnect();
  await database?.drop();
  await dbProxy?.stop();
  await redisProxy?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function redisMonitorReset(): Promise<void> {
  if (redis) {
    const monitor = redisMonitor(redis);
    if (monitor) monitor.log = undefined;
  }
  if (db?.availability) db.availability.log = undefined;
}

const outageLines = (backend: string, what: 'unreachable' | 'reachable again') =>
  lines.filter(
    (line) =>
      line.backend === backend &&
      line.msg === `${backend} ${what}${what === 'unreachable' ? ': answering 503 until it is back' : ''}`,
  );

async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends a request and measures how long its answer took. */
async function timed<T>(request: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await request();
  return { answer, ms: performance.now() - started };
}

async function expectApiOutage(t: ExecutionContext, label: string, token: string, path = '/v2/me') {
  const { answer, ms } = await timed(() => call('GET', path, { token }));
  t.is(answer.status, 503, `${label}: ${JSON.stringify(answer.body)}`);
  t.is(answer.body.status, 'error', label);
  t.is(answer.body.error.code, 'ServiceUnavailable', label);
  t.is(answer.headers.get('retry-after'), '5', label);
  t.truthy(answer.headers.get('x-request-id'), label);
  t.true(ms < ONE_SECOND, `${label}: answered in ${Math.round(ms)} ms`);
}

async function expectOAuthOutage(t: ExecutionContext, label: string, params: Record<string, string>) {
  const { answer, ms } = await timed(() => tokenRequest(url, params));
  t.is(answer.status, 503, `${label}: ${JSON.stringify(answer.body)}`);
  t.is(answer.body.error, 'temporarily_unavailable', label);
  t.is(typeof answer.body.error_description, 'string', label);
  t.is(answer.headers.get('retry-after'), '5', label);
  t.is(answer.headers.get('cache-control'), 'no-store', label);
  t.true(ms < ONE_SECOND, `${label}: answered in ${Math.round(ms)} ms`);
}

async function refreshOnce(): Promise<number> {
  const response = await tokenRequest(url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });
  if (response.status === 200) {
    refreshToken = response.body.refresh_token as string;
    accessToken = response.body.access_token as string;
  }
  return response.status;
}

async function ready(): Promise<number> {
  return (await fetch(`${url}/health/ready`)).status;
}

const errorLines = () => lines.filter((line) => line.level >= 50);

serial('before any outage everything answers', async (t) => {
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
  t.is((await call('GET', '/v2/me', { token: accessToken })).status, 200);
  t.is(await refreshOnce(), 200);
  t.is(await ready(), 200);
});

serial(
  'Redis down: 503 at once on the API and the token endpoint, one log line; back without a restart',
  async (t) => {
    await redisProxy.stop();
    await eventually(() => outageLines('redis', 'unreachable').length > 0, 'the Redis outage line');
    for (let round = 1; round <= 5; round++) {
      await expectApiOutage(t, `API key, round ${round}`, user.apiKey);
      await expectApiOutage(t, `OAuth token, round ${round}`, accessToken);
      await expectOAuthOutage(t, `refresh, round ${round}`, {
        ...clientCredentials(app),
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      });
    }
    t.is(await ready(), 503);
    t.is(outageLines('redis', 'unreachable').length, 1, 'logged once per outage');
    t.deepEqual(errorLines(), [], 'no request logged an error');

    await redisProxy.start();
    await eventually(
      async () => (await call('GET', '/v2/me', { token: user.apiKey })).status === 200,
      'the API',
    );
    t.is((await call('GET', '/v2/me', { token: accessToken })).status, 200);
    t.is(await refreshOnce(), 200);
    t.is(await ready(), 200);
    t.is(outageLines('redis', 'reachable again').length, 1);
    t.is(outageLines('redis', 'unreachable').length, 1);
  },
);

serial(
  'Postgres down: 503 at once on the API and the token endpoint, one log line; back without a restart',
  async (t) => {
    // A client this process has not loaded yet, so the token endpoint must read it from Postgres.
    const fresh = await insertClient(db.knex, { scopes: ['PROFILE_READ'] });
    await dbProxy.stop();
    for (let round = 1; round <= 5; round++) {
      await expectApiOutage(t, `GET /v2/me, round ${round}`, user.apiKey);
      await expectApiOutage(t, `admin route, round ${round}`, user.apiKey, '/v2/admin/resource-servers');
      await expectOAuthOutage(t, `token endpoint, round ${round}`, {
        ...clientCredentials(fresh),
        grant_type: 'refresh_token',
        refresh_token: 'whatever',
      });
    }
    t.is(await ready(), 503);
    await eventually(() => outageLines('database', 'unreachable').length > 0, 'the database outage line');
    t.is(outageLines('database', 'unreachable').length, 1, 'logged once per outage');
    t.deepEqual(errorLines(), [], 'no request logged an error');

    await dbProxy.start();
    await eventually(
      async () => (await call('GET', '/v2/me', { token: user.apiKey })).status === 200,
      'the API',
    );
    const refused = await tokenRequest(url, {
      ...clientCredentials(fresh),
      grant_type: 'refresh_token',
      refresh_token: 'whatever',
    });
    t.is(refused.status, 400, 'the token endpoint reads the client again (and refuses the made-up token)');
    t.is(refused.body.error, 'invalid_grant');
    t.is(await refreshOnce(), 200);
    t.is(await ready(), 200);
    t.is(outageLines('database', 'reachable again').length, 1);
    t.is(outageLines('database', 'unreachable').length, 1);
  },
);

serial('a second outage is logged again, once', async (t) => {
  await redisProxy.stop();
  for (let round = 1; round <= 3; round++) await expectApiOutage(t, `round ${round}`, user.apiKey);
  await redisProxy.start();
  await eventually(
    async () => (await call('GET', '/v2/me', { token: user.apiKey })).status === 200,
    'the API',
  );
  t.is(outageLines('redis', 'unreachable').length, 2);
  t.is(outageLines('redis', 'reachable again').length, 2);
  t.deepEqual(errorLines(), []);
});
