import { openStores, type Stores } from '@sched/db/stores';
import { type RunningServer, startServiceServer } from '@sched/kit/http/server';
import { createLogger } from '@sched/kit/logger';
import test from 'ava';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// Needs the real servers: the embedded default has neither a Postgres nor a Redis to lose.
const needsServers = process.env.DATABASE_URL && process.env.REDIS_URL ? test.serial : test.serial.skip;

let database: TestDatabase;
let stores: Stores;
let server: RunningServer;
let pgProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let redisProxy: Awaited<ReturnType<typeof startTcpProxy>>;

test.before(async () => {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) return;
  database = await createTestDatabase({ migrate: false });
  const pgUrl = new URL(database.url!);
  const redisUrl = new URL(process.env.REDIS_URL);
  pgProxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  pgUrl.host = `127.0.0.1:${pgProxy.port}`;
  redisUrl.host = `127.0.0.1:${redisProxy.port}`;
  stores = await openStores({
    databaseUrl: pgUrl.toString(),
    redisUrl: redisUrl.toString(),
    pgliteDir: 'unused',
    redisPrefix: 'test-outage:',
  });
  const logger = createLogger({ level: 'silent' });
  server = await startServiceServer({
    name: 'outage',
    port: 0,
    host: '127.0.0.1',
    logger,
    handler: (_req, res) => res.end('ok'),
    checks: stores.checks,
    onClose: () => stores.close(),
    shutdownTimeoutMs: 1000,
  });
});

test.after.always(async () => {
  await server?.close();
  await pgProxy?.stop();
  await redisProxy?.stop();
  await database?.drop();
});

async function health(path: string) {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: (await response.json()) as { checks?: Record<string, string> } };
}

needsServers('ready is 200 while Postgres and Redis answer', async (t) => {
  const ready = await health('/health/ready');
  t.is(ready.status, 200);
  t.deepEqual(ready.body.checks, { database: 'ok', redis: 'ok' });
});

needsServers('Redis down: ready 503 naming redis, alive stays 200; back up: ready 200', async (t) => {
  await redisProxy.stop();
  const ready = await health('/health/ready');
  t.is(ready.status, 503);
  t.is(ready.body.checks?.redis, 'fail');
  t.is(ready.body.checks?.database, 'ok');
  t.is((await health('/health/alive')).status, 200);
  await redisProxy.start();
  let status = 0;
  for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
    status = (await health('/health/ready')).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.is(status, 200);
});

needsServers('Postgres down: ready 503 naming database, alive stays 200; back up: ready 200', async (t) => {
  await pgProxy.stop();
  const ready = await health('/health/ready');
  t.is(ready.status, 503);
  t.is(ready.body.checks?.database, 'fail');
  t.is((await health('/health/alive')).status, 200);
  await pgProxy.start();
  let status = 0;
  for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
    status = (await health('/health/ready')).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.is(status, 200);
});
