import { consumedKey, decodeRecord, recordKey, storedTokenId, versionKey } from '@sched/db/token-store/keys';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createTestRedis } from '../../support/redis.ts';

/**
 * What one token-store read costs the API process in ioredis alone (no HTTP): the read the API
 * does per request (`findWithVersions`: the record, its consumed mark and the version keys, in the
 * MGET shared by the reads of one event-loop turn), beside one MGET per read (before the batching),
 * the two-command read of the hash layout used before 2026-11-23 (HMGET + MGET) and a Lua script
 * doing that in one call, 50 in flight. The figure is this
 * process's CPU microseconds per read: ioredis's cost per command (command object, promise,
 * encoding, reply conversion) is what the resource API's membership-read benchmark cannot get
 * under, whatever the rest of the stack does (services/api/README.md).
 */

const IN_FLIGHT = 50;

export async function run(): Promise<void> {
  const testRedis = await createTestRedis();
  if (!testRedis) {
    console.log('REDIS_URL not set: skipped (this scenario measures the Redis client)');
    return;
  }
  const { redis, prefix } = testRedis;
  try {
    const store = createRedisTokenStore({ redis, prefix });
    const payload = {
      kind: 'AccessToken',
      accountId: '5',
      clientId: 'c'.repeat(30),
      scope: 'TEAM_MEMBERSHIP_READ',
      exp: Math.floor(Date.now() / 1000) + 3600,
      iat: Math.floor(Date.now() / 1000),
      grantId: 'g'.repeat(43),
      gty: 'authorization_code',
      extra: { legacy: false },
    };
    await store.upsert('AccessToken', 'bench-token', payload, 3600);
    await store.bumpVersion('user:5');
    await store.bumpVersion('client:c');
    // The former layout, for comparison: the record as a hash.
    const hashKey = `${prefix}bench:hash`;
    await redis.hset(hashKey, 'payload', JSON.stringify(payload));
    const versionKeys = ['user:5', 'client:c'].map((key) => versionKey(prefix, key));
    const script =
      "local r = redis.call('HMGET', KEYS[1], 'payload', 'consumed') local out = { r[1], r[2] } " +
      "local v = redis.call('MGET', unpack(KEYS, 2)) for i = 1, #v do out[i + 2] = v[i] end return out";
    const sha = (await redis.script('LOAD', script)) as string;
    const decoded = (reply: Array<string | null>) =>
      decodeRecord(reply[0] ?? null, reply[1] ?? null) && reply.slice(2).map(Number);

    const shapes: Record<string, () => Promise<unknown>> = {
      'findWithVersions: batched MGET per turn, decoded (what the API does)': () =>
        store.findWithVersions('AccessToken', 'bench-token', ['user:5', 'client:c']),
      'one MGET per read, decoded (before the batching)': async () =>
        decoded(
          await redis.mget(
            recordKey(prefix, 'AccessToken', storedTokenId('bench-token')),
            consumedKey(prefix, 'AccessToken', storedTokenId('bench-token')),
            ...versionKeys,
          ),
        ),
      'hash layout: HMGET + MGET, decoded (before 2026-11-23)': async () => {
        const [[payload = null, consumed = null], versions] = await Promise.all([
          redis.hmget(hashKey, 'payload', 'consumed'),
          redis.mget(...versionKeys),
        ]);
        return decoded([payload, consumed, ...versions]);
      },
      'hash layout in one Lua script, decoded': async () =>
        decoded((await redis.evalsha(sha, 3, hashKey, ...versionKeys)) as Array<string | null>),
    };
    const measure = async (read: () => Promise<unknown>, count: number) => {
      let started = 0;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (started < count) {
            started++;
            await read();
          }
        }),
      );
      const used = process.cpuUsage(cpu);
      return {
        cpuUsPerRead: Math.round(((used.user + used.system) / count) * 10) / 10,
        readsPerSecond: Math.round((count / (performance.now() - t0)) * 1000),
      };
    };
    for (const read of Object.values(shapes)) await measure(read, 20_000); // warm-up
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const results = new Map<string, Array<{ cpuUsPerRead: number; readsPerSecond: number }>>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, read] of Object.entries(shapes)) {
        const list = results.get(name) ?? [];
        list.push(await measure(read, 100_000));
        results.set(name, list);
      }
    }
    console.log(
      `${IN_FLIGHT} reads in flight, ${rounds} rounds of 100,000 reads, medians (CPU of this process)`,
    );
    console.table(
      [...results].map(([shape, list]) => {
        const sorted = [...list].sort((a, b) => a.cpuUsPerRead - b.cpuUsPerRead);
        const median = sorted[Math.floor(sorted.length / 2)]!;
        return { shape, 'CPU us/read': median.cpuUsPerRead, 'reads/s': median.readsPerSecond };
      }),
    );
  } finally {
    await testRedis.drop();
  }
}
