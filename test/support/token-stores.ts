import { randomBytes } from 'node:crypto';
import { openRedisClient, type RedisClient } from '@sched/db/redis';
import { createRawRedisTokenStore, createRedisTokenStore } from '@sched/db/token-store/redis';
import { createRawSqlTokenStore, createSqlTokenStore } from '@sched/db/token-store/sql';
import type { TokenStore } from '@sched/db/token-store/types';
import type { Knex } from 'knex';
import { createTestDatabase, databaseBackends } from './database.ts';
import { createTestRedis } from './redis.ts';
import { startRedisCluster } from './redis-cluster.ts';

/** A token store under test, with direct access to what it wrote (to prove the documented layout). */
export interface TokenStoreHarness {
  store: TokenStore;
  /** The same storage with ids kept as given: the layout before bearer secrets were hashed. */
  raw: TokenStore;
  /** A single node's or a cluster's client (on a cluster, one command's keys must share a slot). */
  redis?: { client: RedisClient; prefix: string; cluster: boolean };
  knex?: Knex;
  drop(): Promise<void>;
}

export interface TokenStoreBackend {
  name: string;
  open: () => Promise<TokenStoreHarness>;
}

/**
 * Every store a contract suite runs on: Redis (REDIS_URL), a real Redis Cluster of 3 masters and
 * 3 replicas started for the file (with REDIS_URL too: the real-services runs; redis-server must
 * be installed), Postgres (DATABASE_URL) and PGlite.
 */
export function tokenStoreBackends(): TokenStoreBackend[] {
  const backends: TokenStoreBackend[] = [];
  if (process.env.REDIS_URL) {
    backends.push({
      name: 'redis',
      open: async () => {
        const redis = (await createTestRedis())!;
        return {
          store: createRedisTokenStore({ redis: redis.redis, prefix: redis.prefix }),
          raw: createRawRedisTokenStore({ redis: redis.redis, prefix: redis.prefix }),
          redis: { client: redis.redis, prefix: redis.prefix, cluster: false },
          drop: () => redis.drop(),
        };
      },
    });
    backends.push({
      name: 'redis-cluster',
      open: async () => {
        const cluster = await startRedisCluster();
        const client = await openRedisClient(cluster.url, { connectionName: 'test' });
        const prefix = `test:${randomBytes(6).toString('hex')}:`;
        return {
          store: createRedisTokenStore({ redis: client, prefix }),
          raw: createRawRedisTokenStore({ redis: client, prefix }),
          redis: { client, prefix, cluster: true },
          drop: async () => {
            client.disconnect();
            await cluster.stop();
          },
        };
      },
    });
  }
  for (const backend of databaseBackends()) {
    backends.push({
      name: backend,
      open: async () => {
        const database = await createTestDatabase({ backend });
        return {
          store: createSqlTokenStore({ knex: database.db.knex }),
          raw: createRawSqlTokenStore({ knex: database.db.knex }),
          knex: database.db.knex,
          drop: () => database.drop(),
        };
      },
    });
  }
  return backends;
}
