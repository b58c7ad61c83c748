import type { createApiApp } from '@sched/api/app';
import { type Database, openDatabase } from '@sched/db/connection';
import { openRedis } from '@sched/db/redis';
import type { Stores } from '@sched/db/stores';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import type { TokenStore } from '@sched/db/token-store/types';
import type { TestFn } from 'ava';
import { apiRuntime, serveApiApp } from '../../support/api-app.ts';
import { TEST_CONNECT_TIMEOUT_MS } from '../../support/database.ts';
import { setUpForFile } from '../../support/read-through.ts';
import type { TestSystem } from '../../support/system.ts';

export interface SecondApi {
  url: string;
  /** Token-store calls made by this API app, by method name (reset with `resetCounts`). */
  storeCalls: Map<string, number>;
  /** SQL statements this app ran (Postgres: its own pool; PGlite: the shared one, so run alone). */
  queries(): number;
  resetCounts(): void;
  close(): Promise<void>;
}

/**
 * A second resource-API app, as a second process would be: its own caches, its own Redis
 * connection on the same key prefix and its own database pool on the same database (PGlite, being
 * in-process, is shared). Its token store counts calls, to check one read per request.
 */
export async function startSecondApi(system: TestSystem): Promise<SecondApi> {
  const ownDb: Database | undefined = system.database.url
    ? await openDatabase({ url: system.database.url, connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS })
    : undefined;
  const db = ownDb ?? system.stores.db;
  // The production client (openRedis: its options and one socket write per event-loop turn).
  const redis = system.redis
    ? await openRedis(system.redis.url, { connectionName: 'second-api' })
    : undefined;
  const inner = redis
    ? createRedisTokenStore({ redis, prefix: system.redis!.prefix })
    : createSqlTokenStore({ knex: db.knex });
  const storeCalls = new Map<string, number>();
  const tokenStore = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        storeCalls.set(String(property), (storeCalls.get(String(property)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  }) as TokenStore;
  let queries = 0;
  const onQuery = () => {
    queries++;
  };
  db.knex.on('query', onQuery);
  const stores: Stores = { db, tokenStore, redis, checks: [], close: async () => {} };
  const api = await serveApiApp(apiRuntime(system.config, stores));
  return {
    url: api.url,
    storeCalls,
    queries: () => queries,
    resetCounts: () => {
      storeCalls.clear();
      queries = 0;
    },
    close: async () => {
      await api.close();
      db.knex.off('query', onQuery);
      redis?.disconnect();
      await ownDb?.close();
    },
  };
}

export interface ProbeApi {
  url: string;
  close(): Promise<void>;
}

/**
 * An API app serving only `routes` (a test's own declarations) on the system's stores, on a port
 * of its own, for the file: started after the system's hook, closed after the tests.
 */
export function setUpProbeApi<Context>(
  test: TestFn<Context>,
  system: TestSystem,
  routes: Parameters<typeof createApiApp>[1],
): ProbeApi {
  return setUpForFile(
    test,
    'the probe API',
    async (): Promise<ProbeApi> => {
      const { url, close } = await serveApiApp(apiRuntime(system.config, system.stores), routes);
      return { url, close };
    },
    (probe) => probe.close(),
    { url: true, close: true },
  );
}
