import type { RedisClient } from '@sched/db/redis';
import { TOKEN_TABLES } from '@sched/db/token-store/keys';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';

/**
 * Everything a token store holds, as text: each Redis key under `prefix` with its value (strings,
 * sorted sets' members), or each token_records row with every column. For tests proving that a
 * copy of the store holds no usable token (docs/token-store.md "Hashed ids").
 */
export async function dumpTokenStore(
  target: { redis: RedisClient; prefix: string } | { knex: Knex },
): Promise<string[]> {
  if ('knex' in target) {
    const rows = await target.knex(TOKEN_TABLES.records).select('*');
    return rows.map((row) => JSON.stringify(row));
  }
  const { redis, prefix } = target;
  const nodes: Redis[] = 'nodes' in redis ? redis.nodes('master') : [redis];
  const keys = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      for (const key of found) keys.add(key);
    } while (cursor !== '0');
  }
  const lines: string[] = [];
  for (const key of keys) {
    const type = await redis.type(key);
    if (type === 'string') lines.push(`${key} ${await redis.get(key)}`);
    else if (type === 'zset') lines.push(`${key} ${(await redis.zrange(key, 0, -1)).join(' ')}`);
    else lines.push(`${key} (${type})`);
  }
  return lines;
}

/** The lines of `dump` that contain any of `secrets` (empty when none leaks). */
export function leaks(dump: readonly string[], secrets: readonly string[]): string[] {
  return dump.filter((line) => secrets.some((secret) => line.includes(secret)));
}
