import { randomBytes } from 'node:crypto';
import { openRedis } from '@sched/db/redis';
import type { Redis } from 'ioredis';

export interface TestRedis {
  redis: Redis;
  /** Unique key prefix of this test file; everything under it is deleted by drop(). */
  prefix: string;
  url: string;
  drop(): Promise<void>;
}

/** A Redis connection and a unique key prefix when REDIS_URL is set; undefined otherwise. */
export async function createTestRedis(): Promise<TestRedis | undefined> {
  const url = process.env.REDIS_URL;
  if (!url) return undefined;
  // The production client options: tests and benchmarks see what runs.
  const redis = await openRedis(url, { connectionName: 'test' });
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  return {
    redis,
    prefix,
    url,
    drop: async () => {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}
