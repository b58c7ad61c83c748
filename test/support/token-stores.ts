import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import type { TokenStore } from '@sched/db/token-store/types';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { createTestDatabase, databaseBackends } from './database.ts';
import { createTestRedis } from './redis.ts';

/** A token store under test, with direct access to what it wrote (to prove the documented layout). */
export interface TokenStoreHarness {
  store: TokenStore;
  redis?: { client: Redis; prefix: string };
  knex?: Knex;
  drop(): Promise<void>;
}

export interface TokenStoreBackend {
  name: string;
  open: () => Promise<TokenStoreHarness>;
}

/** Every store a contract suite runs on: Redis (REDIS_URL), Postgres (DATABASE_URL) and PGlite. */
export function tokenStoreBackends(): TokenStoreBackend[] {
  const backends: TokenStoreBackend[] = [];
  if (process.env.REDIS_URL) {
    backends.push({
      name: 'redis',
      open: async () => {
        const redis = (await createTestRedis())!;
        return {
          store: createRedisTokenStore({ redis: redis.redis, prefix: redis.prefix }),
          redis: { client: redis.redis, prefix: redis.prefix },
          drop: () => redis.drop(),
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
          knex: database.db.knex,
          drop: () => database.drop(),
        };
      },
    });
  }
  return backends;
}
