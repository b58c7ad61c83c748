import type { Socket } from 'node:net';
import { coalesceWrites, turnOf } from '@sched/db/redis-turn';
import { createMgetBatcher } from '@sched/db/token-store/mget-batch';
import test from 'ava';
import type { Redis } from 'ioredis';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

// The Redis client's writes: one socket write per event-loop turn (shared/db/src/redis-turn.ts).
// Needs REDIS_URL: the point is what reaches a real server, and in which order.

const hasRedis = Boolean(process.env.REDIS_URL);
const redisTest = hasRedis ? test.serial : test.skip;

let testRedis: TestRedis | undefined;
test.before(async () => {
  testRedis = await createTestRedis();
});
test.after.always(async () => {
  await testRedis?.drop();
});

/**
 * Counts what the client's current socket hands to the operating system: Node calls a stream's
 * `_write` for one chunk and `_writev` for several buffered ones (what uncorking does).
 */
function countWrites(redis: Redis): { writes: () => number; restore: () => void } {
  const socket = redis.stream as Socket & {
    _write: (...args: unknown[]) => void;
    _writev?: (...args: unknown[]) => void;
  };
  let count = 0;
  const write = socket._write;
  const writev = socket._writev;
  socket._write = function (this: unknown, ...args: unknown[]) {
    count++;
    return write.apply(this, args);
  };
  if (writev) {
    socket._writev = function (this: unknown, ...args: unknown[]) {
      count++;
      return writev.apply(this, args);
    };
  }
  return {
    writes: () => count,
    restore: () => {
      socket._write = write;
      if (writev) socket._writev = writev;
    },
  };
}

redisTest('the production client (openRedis) writes each turn once', (t) => {
  t.truthy(turnOf(testRedis!.redis));
  t.is(coalesceWrites(testRedis!.redis), turnOf(testRedis!.redis)!, 'set up once');
});

redisTest('commands issued in one turn leave in one write and answer in order', async (t) => {
  const { redis, prefix } = testRedis!;
  const key = `${prefix}turn:order`;
  const counter = countWrites(redis);
  try {
    const replies = await Promise.all([
      redis.set(key, 'first'),
      redis.get(key),
      redis.set(key, 'second'),
      redis.get(key),
      redis.del(key),
      redis.get(key),
      ...Array.from({ length: 20 }, (_, i) => redis.incr(`${prefix}turn:n${i % 3}`)),
    ]);
    t.deepEqual(replies.slice(0, 6), ['OK', 'first', 'OK', 'second', 1, null]);
    t.is(counter.writes(), 1);
  } finally {
    counter.restore();
  }
});

redisTest('commands of separate turns leave separately', async (t) => {
  const { redis, prefix } = testRedis!;
  const counter = countWrites(redis);
  try {
    await redis.set(`${prefix}turn:a`, '1');
    await redis.get(`${prefix}turn:a`);
    t.is(counter.writes(), 2);
  } finally {
    counter.restore();
  }
});

redisTest("a batched read joins its turn's write and sees the writes issued before it", async (t) => {
  const { redis, prefix } = testRedis!;
  const key = `${prefix}turn:batched`;
  await redis.set(key, 'old');
  const mget = createMgetBatcher(redis);
  const counter = countWrites(redis);
  try {
    const [, read, , second] = await Promise.all([
      redis.del(key),
      mget([key]),
      redis.set(`${prefix}turn:other`, 'x'),
      mget([`${prefix}turn:other`]),
    ]);
    t.deepEqual(read, [null], 'the delete issued first is seen');
    t.deepEqual(second, ['x'], 'a write issued earlier in the turn is seen by the batch');
    t.is(counter.writes(), 1, 'the MGET went out with the turn, not a turn later');
  } finally {
    counter.restore();
  }
});

redisTest('a task queued while a turn ends runs at the end of the next turn', async (t) => {
  const turn = turnOf(testRedis!.redis)!;
  const ran: string[] = [];
  const bothRan = new Promise<void>((resolve) => {
    turn.atEnd(() => {
      ran.push('first');
      turn.atEnd(() => {
        ran.push('second');
        resolve();
      });
    });
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([bothRan, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
  clearTimeout(timer);
  t.deepEqual(ran, ['first', 'second']);
});

redisTest('after a reconnect the new connection is used, and still written once a turn', async (t) => {
  const { redis, prefix } = testRedis!;
  const key = `${prefix}turn:reconnect`;
  const ready = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  redis.disconnect(true);
  // Issued while reconnecting: refused at once (no offline queue: an outage is answered fast,
  // docs/decisions.md), not queued.
  await t.throwsAsync(() => redis.set(key, 'queued'), { message: /enableOfflineQueue/ });
  await ready;
  const counter = countWrites(redis);
  try {
    t.deepEqual(await Promise.all([redis.set(key, 'again'), redis.get(key)]), ['OK', 'again']);
    t.is(counter.writes(), 1);
  } finally {
    counter.restore();
  }
});
