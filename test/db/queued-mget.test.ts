import { queuedMget } from '@sched/db/token-store/queued-mget';
import test from 'ava';
import { Redis } from 'ioredis';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

/** A test Redis whose `mget` fails the test if called: the read must go through the queue. */
async function withRedis(
  t: import('ava').ExecutionContext,
  run: (redis: Redis, prefix: string) => Promise<void>,
): Promise<void> {
  const testRedis: TestRedis | undefined = await createTestRedis();
  if (!testRedis) {
    t.pass('REDIS_URL not set');
    return;
  }
  const { redis, prefix } = testRedis;
  const mget = redis.mget.bind(redis);
  redis.mget = ((...args: Parameters<Redis['mget']>) => {
    t.fail('redis.mget was called');
    return mget(...args);
  }) as Redis['mget'];
  try {
    await run(redis, prefix);
  } finally {
    redis.mget = mget;
    await testRedis.drop();
  }
}

test('real Redis: values in the order of the keys, strings as stored, null for a missing key', (t) =>
  withRedis(t, async (redis, prefix) => {
    await redis.set(`${prefix}a`, 'plain');
    await redis.set(`${prefix}b`, 'ünïcödé ✓ {"json":true}');
    await redis.set(`${prefix}c`, '');
    const values = await queuedMget(redis, [`${prefix}b`, `${prefix}missing`, `${prefix}a`, `${prefix}c`]);
    t.deepEqual(values, ['ünïcödé ✓ {"json":true}', null, 'plain', '']);
  }));

test('real Redis: it keeps its place among the commands issued around it', (t) =>
  withRedis(t, async (redis, prefix) => {
    const key = `${prefix}order`;
    await redis.set(key, 'first');
    // Neither write is awaited before the read is issued: only the order of issue decides.
    const before = redis.set(key, 'second');
    const read = queuedMget(redis, [key]);
    const after = redis.set(key, 'third');
    t.deepEqual(await read, ['second']);
    await Promise.all([before, after]);
    t.deepEqual(await queuedMget(redis, [key]), ['third']);
  }));

test('real Redis: concurrent reads each get their own reply', (t) =>
  withRedis(t, async (redis, prefix) => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => redis.set(`${prefix}k${i}`, `v${i}`)));
    const reads = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queuedMget(redis, [`${prefix}k${i}`, `${prefix}k${(i + 1) % 20}`]),
      ),
    );
    t.deepEqual(
      reads,
      Array.from({ length: 20 }, (_, i) => [`v${i}`, `v${(i + 1) % 20}`]),
    );
  }));

test('real Redis: an error reply rejects the read, and the connection goes on', (t) =>
  withRedis(t, async (redis, prefix) => {
    // MGET without a key is an error reply from Redis.
    const error = await t.throwsAsync(queuedMget(redis, []));
    t.regex(error.message, /wrong number of arguments/i);
    await redis.set(`${prefix}after`, 'fine');
    t.deepEqual(await queuedMget(redis, [`${prefix}after`]), ['fine']);
  }));

test('real Redis: a read whose connection drops before its reply is resent on the new connection', (t) =>
  withRedis(t, async (redis, prefix) => {
    await redis.set(`${prefix}resent`, 'still here');
    const reconnected = new Promise((resolve) => redis.once('ready', resolve));
    const read = queuedMget(redis, [`${prefix}resent`]);
    // The socket destroyed in the same turn: the reply cannot have been read. ioredis reconnects
    // and resends what was waiting, which uses the entry's own RESP text.
    redis.stream.destroy();
    t.deepEqual(await read, ['still here']);
    await reconnected;
  }));

test('real Redis: a client that is not connected refuses the read at once, as any command', async (t) => {
  const testRedis = await createTestRedis();
  if (!testRedis) return t.pass('REDIS_URL not set');
  const { redis } = testRedis;
  await redis.quit();
  const error = await t.throwsAsync(queuedMget(redis, [`${testRedis.prefix}x`]));
  t.regex(error.message, /closed/i);
});

test('real Redis: a client with a key prefix gets its own prefixed MGET', async (t) => {
  const testRedis = await createTestRedis();
  if (!testRedis) return t.pass('REDIS_URL not set');
  const prefixed = new Redis(testRedis.url, { keyPrefix: `${testRedis.prefix}p:` });
  try {
    await testRedis.redis.set(`${testRedis.prefix}p:k`, 'prefixed');
    await prefixed.ping();
    t.is(prefixed.status, 'ready');
    t.deepEqual(await queuedMget(prefixed, ['k']), ['prefixed']);
  } finally {
    prefixed.disconnect();
    await testRedis.drop();
  }
});
