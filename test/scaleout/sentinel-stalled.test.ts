import { openRedisClient, type RedisClient } from '@sched/db/redis';
import test, { type ExecutionContext } from 'ava';
import type { Redis } from 'ioredis';
import { waitUntil } from '../support/redis-server.ts';
import { startRedisSentinel, type TestRedisSentinel } from '../support/redis-sentinel.ts';

// A failover while one sentinel hangs (SIGSTOP: it accepts connections and answers nothing). The
// client asks its sentinels in turn, the hung one first (the one that named the master last). Two
// ways ioredis on its own loses the client for good here (we must recover without a restart): its
// question to the hung sentinel waits for ever, and when the other sentinels' +switch-master
// reaches its failover detector during that question, it abandons the reconnection with "Connection
// is closed." and ends the client (shared/db/src/sentinel-client.ts).

const setUps: TestRedisSentinel[] = [];

test.after.always(async () => {
  await Promise.all(setUps.map((setUp) => setUp.stop()));
});

/**
 * Kills the master while the sentinel the client asks first is paused, and resumes that sentinel
 * `resumeAfterMs` after the others failed over (never, when undefined); the client must then serve
 * the new master.
 */
async function failoverWithHungSentinel(t: ExecutionContext, resumeAfterMs: number | undefined) {
  const setUp = await startRedisSentinel();
  setUps.push(setUp);
  const redis: RedisClient = await openRedisClient(setUp.url, { connectionName: 'hung-sentinel-test' });
  const events: string[] = [];
  const started = Date.now();
  for (const name of ['close', 'reconnecting', 'end', 'ready'])
    redis.on(name, () => events.push(`+${Date.now() - started}ms ${name}`));
  // The URL names this sentinel first, and it answered the client's first question.
  const [first] = setUp.sentinels;
  try {
    await redis.set('hung:key', 'kept');
    t.is(await (redis as Redis).wait(1, 2000), 1);
    first!.pause();
    const killed = await setUp.killMaster();
    t.not(await setUp.currentMasterPort(), killed.port);
    if (resumeAfterMs !== undefined) setTimeout(() => first!.resume(), resumeAfterMs).unref();
    await waitUntil('the client serves the new master', 30_000, async () => {
      await redis.set('hung:after', 'yes');
      return true;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstatus now: ${redis.status}\nevents: ${events.join(', ')}`);
    });
    t.is(await redis.get('hung:key'), 'kept');
    t.deepEqual(await (redis as Redis).config('GET', 'port'), [
      'port',
      String(await setUp.currentMasterPort()),
    ]);
  } finally {
    first!.resume();
    redis.disconnect();
  }
}

test.serial(
  'a failover while the sentinel asked first hangs throughout: the client serves the new master',
  (t) => failoverWithHungSentinel(t, undefined),
);

test.serial(
  'a failover while the sentinel asked first hangs until just after it: the client serves the new master',
  (t) => failoverWithHungSentinel(t, 500),
);

test.serial('a client closed by its caller stays closed', async (t) => {
  const setUp = setUps[0] ?? (await startRedisSentinel());
  if (!setUps.includes(setUp)) setUps.push(setUp);
  const redis = await openRedisClient(setUp.url);
  await redis.ping();
  const ended = new Promise((resolve) => redis.once('end', resolve));
  redis.disconnect();
  await ended;
  // Longer than the pause before a client that ended on its own connects again (1 s).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.is(redis.status, 'end');
});
