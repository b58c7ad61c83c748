import { createMgetBatcher } from '@sched/db/token-store/mget-batch';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import test from 'ava';
import { createTestRedis } from '../support/redis.ts';

type Values = (string | null)[];

/** A stand-in for the client: records each MGET and answers `value:<key>`, or fails. */
function fakeRedis(options: { fail?: Error; throwAtOnce?: boolean } = {}) {
  const calls: string[][] = [];
  return {
    calls,
    redis: {
      mget: (keys: string[]): Promise<Values> => {
        calls.push([...keys]);
        if (options.fail && options.throwAtOnce) throw options.fail;
        if (options.fail) return Promise.reject(options.fail);
        return Promise.resolve(keys.map((key) => (key.startsWith('missing') ? null : `value:${key}`)));
      },
    } as unknown as Parameters<typeof createMgetBatcher>[0],
  };
}

test('the reads of one turn share one MGET; each caller gets its own values, in order', async (t) => {
  const { calls, redis } = fakeRedis();
  const mget = createMgetBatcher(redis);
  const [a, b, c] = await Promise.all([mget(['a1', 'a2']), mget(['missing-b']), mget(['c1', 'c2', 'c3'])]);
  t.deepEqual(calls, [['a1', 'a2', 'missing-b', 'c1', 'c2', 'c3']]);
  t.deepEqual(a, ['value:a1', 'value:a2']);
  t.deepEqual(b, [null]);
  t.deepEqual(c, ['value:c1', 'value:c2', 'value:c3']);
});

test('reads of different turns are separate MGETs', async (t) => {
  const { calls, redis } = fakeRedis();
  const mget = createMgetBatcher(redis);
  t.deepEqual(await mget(['x']), ['value:x']);
  t.deepEqual(await mget(['y']), ['value:y']);
  t.deepEqual(calls, [['x'], ['y']]);
});

test('a failed MGET rejects every read of its batch with the error', async (t) => {
  const failure = new Error('connection lost');
  const { redis } = fakeRedis({ fail: failure });
  const mget = createMgetBatcher(redis);
  const results = await Promise.allSettled([mget(['a']), mget(['b', 'c'])]);
  t.deepEqual(
    results.map((result) => (result.status === 'rejected' ? result.reason : result.value)),
    [failure, failure],
  );
});

test("a client that throws instead of rejecting fails the batch's reads, not the process", async (t) => {
  const failure = new Error('Connection is closed.');
  const { redis } = fakeRedis({ fail: failure, throwAtOnce: true });
  const mget = createMgetBatcher(redis);
  const results = await Promise.allSettled([mget(['a']), mget(['b'])]);
  t.deepEqual(
    results.map((result) => result.status === 'rejected' && result.reason),
    [failure, failure],
  );
});

test('a burst over the key limit is cut into several MGETs; no read is split or lost', async (t) => {
  const { calls, redis } = fakeRedis();
  const mget = createMgetBatcher(redis, 4);
  const reads = await Promise.all([mget(['a', 'b']), mget(['c', 'd', 'e']), mget(['f']), mget(['g'])]);
  t.deepEqual(calls, [
    ['a', 'b', 'c', 'd', 'e'],
    ['f', 'g'],
  ]);
  t.deepEqual(reads, [['value:a', 'value:b'], ['value:c', 'value:d', 'value:e'], ['value:f'], ['value:g']]);
});

test('real Redis: a write issued before a batched read in the same turn is seen by it', async (t) => {
  const testRedis = await createTestRedis();
  if (!testRedis) return t.pass('REDIS_URL not set');
  const { redis, prefix } = testRedis;
  try {
    const mget = createMgetBatcher(redis);
    const key = `${prefix}batch:order`;
    await redis.set(key, 'before');
    // Not awaited: the SET is only issued, as a revocation racing a request would be.
    const written = redis.set(key, 'after');
    const [seen] = await mget([key]);
    await written;
    t.is(seen, 'after');
    // And a burst of concurrent reads all see the current value.
    const reads = await Promise.all(Array.from({ length: 50 }, () => mget([key, `${prefix}batch:none`])));
    t.true(reads.every(([value, none]) => value === 'after' && none === null));
  } finally {
    await testRedis.drop();
  }
});

test('real Redis: access-token records are parsed once and shared frozen; other models stay fresh', async (t) => {
  const testRedis = await createTestRedis();
  if (!testRedis) return t.pass('REDIS_URL not set');
  const store = createRedisTokenStore({ redis: testRedis.redis, prefix: testRedis.prefix });
  try {
    const payload = { kind: 'AccessToken', accountId: '7', clientId: 'c', scope: 'PROFILE_READ' };
    await store.upsert('AccessToken', 'shared-at', payload, 60);
    await store.upsert('RefreshToken', 'fresh-rt', { ...payload, kind: 'RefreshToken' }, 60);
    const [first, second] = await Promise.all([
      store.findWithVersions('AccessToken', 'shared-at', ['user:7']),
      store.findWithVersions('AccessToken', 'shared-at', []),
    ]);
    t.is(first.record, second.record);
    t.true(Object.isFrozen(first.record));
    t.deepEqual(first.versions, [0]);
    const refreshA = await store.findWithVersions('RefreshToken', 'fresh-rt', []);
    const refreshB = await store.findWithVersions('RefreshToken', 'fresh-rt', []);
    t.not(refreshA.record, refreshB.record);
    t.false(Object.isFrozen(refreshA.record));
  } finally {
    await testRedis.drop();
  }
});
