import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeSystem } from '@sched/launcher/compose';
import type { Stores } from '@sched/db/stores';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import { type Config, loadConfig } from '@sched/kit/config';
import { metricsOptions } from '@sched/kit/boot';
import { type RunningServer, startServiceServer } from '@sched/kit/http/server';
import { createLogger } from '@sched/kit/logger';
import type { CalendarWriteWorkerOptions } from '@sched/runtime/calendar-write-worker';
import type { TestFn } from 'ava';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { freePort } from './process.ts';
import { setUpForFile } from './read-through.ts';
import { createTestRedis, type TestRedis } from './redis.ts';

export interface TestSystem {
  url: string;
  config: Config;
  stores: Stores;
  database: TestDatabase;
  redis: TestRedis | undefined;
  server: RunningServer;
  close(): Promise<void>;
}

/**
 * The whole system (auth + api on one origin) in this process, on its own database and Redis
 * prefix (real servers when DATABASE_URL / REDIS_URL are set, PGlite and the SQL store otherwise).
 */
export interface TestSystemOptions {
  /** The calendar write worker's pace (calendar tests: a short interval and no backoff). */
  calendarWrites?: CalendarWriteWorkerOptions;
}

export async function startTestSystem(
  env: Record<string, string> = {},
  options: TestSystemOptions = {},
): Promise<TestSystem> {
  const database = await createTestDatabase();
  const redis = await createTestRedis();
  const tokenStore = redis
    ? createRedisTokenStore({ redis: redis.redis, prefix: redis.prefix })
    : createSqlTokenStore({ knex: database.db.knex });
  const checks = [{ name: 'database', check: () => database.db.ping() }];
  if (redis) checks.push({ name: 'redis', check: () => tokenStore.ping() });
  const stores: Stores = {
    db: database.db,
    tokenStore,
    redis: redis?.redis,
    checks,
    close: async () => {},
  };
  // A fixed port known before start, so the issuer and page URLs are the real ones.
  const port = await freePort();
  // Its own data folder (mail written as .eml files when no SMTP_URL is given), removed on close,
  // so test runs leave nothing in the checkout's ./.data.
  const dataDir = await mkdtemp(join(tmpdir(), 'sched-test-system-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    COOKIE_KEYS: 'test-cookie-key-0123456789abcdefghijklmnop',
    ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
    ...env,
  });
  const logger = createLogger({ level: config.logLevel });
  const service = await composeSystem(config, logger, {
    stores,
    ...(options.calendarWrites ? { calendarWrites: options.calendarWrites } : {}),
  });
  const server = await startServiceServer({
    name: 'test',
    port,
    host: '127.0.0.1',
    logger,
    handler: service.handler,
    checks: service.checks,
    onClose: service.onClose,
    shutdownTimeoutMs: 2000,
    metrics: metricsOptions(config, service),
    publicUrls: [config.appUrl, config.baseUrl],
  });
  return {
    url: server.url,
    config,
    stores,
    database,
    redis,
    server,
    close: async () => {
      await server.close();
      await redis?.drop();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One running system for the whole file: started in `test.before` (with `env` added to its
 * configuration), closed in `test.after.always`. The hook is serial, so before hooks declared after
 * this call find the system running. The returned object reads through to it (`system.url`).
 * `env` may be a function, for values known only in the hook (an SMTP server's URL, a free port).
 */
export function setUpTestSystem<Context>(
  test: TestFn<Context>,
  env: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>) = {},
  options: TestSystemOptions = {},
): TestSystem {
  return setUpForFile(
    test,
    'the test system',
    async () => startTestSystem(typeof env === 'function' ? await env() : env, options),
    (system) => system.close(),
    {
      url: true,
      config: true,
      stores: true,
      database: true,
      redis: true,
      server: true,
      close: true,
    },
  );
}
