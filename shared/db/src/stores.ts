import type { OutageLog } from './availability.ts';
import { type Database, openDatabase } from './connection.ts';
import type { RedisClient } from './redis.ts';
import { createSqlTokenStore } from './token-store/sql.ts';
import type { TokenStore } from './token-store/types.ts';

export interface Stores {
  db: Database;
  tokenStore: TokenStore;
  /** Present when REDIS_URL is set: one node, a Sentinel-managed master, or a Cluster. */
  redis: RedisClient | undefined;
  /** Readiness checks by name, for /health/ready. */
  checks: Array<{ name: string; check: () => Promise<unknown> }>;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** PGlite data folder, used when databaseUrl is unset. */
  pgliteDir: string;
  /** Prefix of every Redis key (one deployment may share a Redis with others). */
  redisPrefix?: string;
  log?: { warn(message: string): void; debug(message: string): void };
  /** Where an outage of Postgres or Redis is logged: once when it starts, once when it ends. */
  outageLog?: OutageLog;
  /**
   * Seconds: the longest any code, token or session lives (`longestTokenLifetime` of the config),
   * for the token store's fallback to ids of the old layout (docs/token-store.md "Hashed ids").
   */
  longestTokenLifetime?: number;
}

/**
 * The data stores of a process: the database, and the token store in Redis when configured,
 * otherwise in the database (the embedded default keeps everything durable in one place).
 */
export async function openStores(options: OpenStoresOptions): Promise<Stores> {
  const db = await openDatabase({ url: options.databaseUrl, pgliteDir: options.pgliteDir, log: options.log });
  if (db.availability) db.availability.log = options.outageLog;
  let redis: RedisClient | undefined;
  let tokenStore: TokenStore;
  try {
    if (options.redisUrl) {
      // Imported only with REDIS_URL: the embedded default does not load ioredis at start.
      const [{ openRedisClient }, { createRedisTokenStore }] = await Promise.all([
        import('./redis.ts'),
        import('./token-store/redis.ts'),
      ]);
      redis = await openRedisClient(
        options.redisUrl,
        options.outageLog ? { outageLog: options.outageLog } : {},
      );
      // The token store is typed for one connection; on a Cluster it relies on every script
      // touching one slot (docs/token-store.md).
      tokenStore = createRedisTokenStore({
        redis,
        prefix: options.redisPrefix ?? 'sched:',
        longestTokenLifetime: options.longestTokenLifetime,
      });
    } else {
      tokenStore = createSqlTokenStore({ knex: db.knex, longestTokenLifetime: options.longestTokenLifetime });
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  const checks = [{ name: 'database', check: () => db.ping() }];
  if (redis) checks.push({ name: 'redis', check: () => tokenStore.ping() });
  return {
    db,
    tokenStore,
    redis,
    checks,
    close: async () => {
      await tokenStore.close();
      await db.close();
    },
  };
}
