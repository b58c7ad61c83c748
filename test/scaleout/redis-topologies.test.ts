import { backendFailure } from '@sched/db/availability';
import { openRedisClient, type RedisClient } from '@sched/db/redis';
import { openStores } from '@sched/db/stores';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import test from 'ava';
import { Cluster, Redis } from 'ioredis';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster.ts';
import { startRedisSentinel, type TestRedisSentinel } from '../support/redis-sentinel.ts';
import { waitUntil } from '../support/redis-server.ts';

// The Redis Cluster and Sentinel launchers of the test kit, and the services' client factory on
// them: REDIS_URL picks the client kind; it survives a master's death without a restart.

let cluster: TestRedisCluster | undefined;
let sentinel: TestRedisSentinel | undefined;

test.before(async () => {
  [cluster, sentinel] = await Promise.all([startRedisCluster(), startRedisSentinel()]);
});

test.after.always(async () => {
  await Promise.all([cluster?.stop(), sentinel?.stop()]);
});

/**
 * Retries `work` until it succeeds: commands during a promotion may fail (a 503 for a service).
 * If it never does, the error tells what the client went through meanwhile: its connection events
 * and each distinct error with how often it came.
 */
async function eventually<T>(redis: RedisClient, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const events: string[] = [];
  const errors = new Map<string, number>();
  const listeners = ['connect', 'ready', 'close', 'reconnecting', 'end', '+node', '-node', 'node error'].map(
    (name) => {
      const listener = () => events.push(`+${Date.now() - started}ms ${name} (status ${redis.status})`);
      redis.on(name, listener);
      return () => redis.off(name, listener);
    },
  );
  let result: T | undefined;
  try {
    await waitUntil('the client serves again', 20_000, async () => {
      try {
        result = await work();
      } catch (error) {
        const message = String(error);
        errors.set(message, (errors.get(message) ?? 0) + 1);
        throw error;
      }
      return true;
    });
  } catch (error) {
    const seen = [...errors].map(([message, count]) => `${count} x ${message}`);
    throw new Error(
      [String(error), `status now: ${redis.status}`, 'events:', ...events, 'errors:', ...seen].join('\n'),
    );
  } finally {
    for (const off of listeners) off();
  }
  return result as T;
}

/**
 * Sets and gets keys back to back until stopped; returns the errors seen that a service would not
 * turn into a 503 (`backendFailure`), and how many commands failed in all.
 */
function trafficDuring(redis: RedisClient) {
  let stopped = false;
  let failed = 0;
  const unrecognised: string[] = [];
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      try {
        await redis.set(`traffic:${i % 64}`, String(i));
      } catch (error) {
        failed++;
        if (!backendFailure(error)) unrecognised.push(String(error));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { failed, unrecognised };
    },
  };
}

test.serial('redis+cluster:// gives a Cluster client; keys spread over the three masters', async (t) => {
  const redis = await openRedisClient(cluster!.url, { connectionName: 'cluster-test' });
  try {
    t.true(redis instanceof Cluster);
    const keys = Array.from({ length: 30 }, (_, i) => `launcher:${i}`);
    for (const key of keys) await redis.set(key, key);
    for (const key of keys) t.is(await redis.get(key), key);
    const owners = new Set(await Promise.all(keys.map(async (key) => (await cluster!.masterOf(key)).port)));
    t.is(owners.size, 3, 'every master holds some of the keys');
  } finally {
    redis.disconnect();
  }
});

test.serial('rate limits and cache versions work on a cluster (one key per command)', async (t) => {
  const redis = await openRedisClient(cluster!.url);
  const store = createRedisTokenStore({ redis: redis as Redis, prefix: 'rl-test:' });
  try {
    // Keys in different slots: each counter and each version lives on its own node.
    for (let i = 1; i <= 3; i++) t.is((await store.hit('login:a@example.com', 60)).count, i);
    t.is((await store.hit('login:b@example.com', 60)).count, 1);
    t.is(await store.bumpVersion('access:1'), 1);
    t.is(await store.bumpVersion('access:1'), 2);
    t.is(await store.bumpVersion('client:web'), 1);
  } finally {
    redis.disconnect();
  }
});

test.serial('a cluster master killed: a replica takes over and the same client serves again', async (t) => {
  const redis = await openRedisClient(cluster!.url);
  // Stopped on every way out: a loop left running would keep the test file from ever exiting.
  let traffic: ReturnType<typeof trafficDuring> | undefined;
  try {
    await redis.set('failover:key', 'kept', 'EX', 600);
    // WAIT on the key's master: the write reached its replica, so the promotion cannot lose it.
    const owner = await cluster!.masterOf('failover:key');
    const node = (redis as Cluster)
      .nodes('master')
      .find((candidate) => candidate.options.port === owner.port);
    t.is(await node?.wait(1, 2000), 1);
    traffic = trafficDuring(redis);
    const killed = await cluster!.killMasterOf('failover:key');
    t.not((await cluster!.masterOf('failover:key')).port, killed.port);
    t.is(await eventually(redis, () => redis.get('failover:key')), 'kept');
    await eventually(redis, () => redis.set('failover:after', 'yes'));
    // Every command that failed meanwhile failed as an outage (a 503 for a service), none as a bug.
    const { unrecognised } = await traffic.stop();
    t.deepEqual(unrecognised, []);
    t.is(await redis.get('failover:after'), 'yes');
    // The killed node comes back as a replica of the new master.
    await killed.start();
    await cluster!.waitHealthy();
    t.not((await cluster!.masterOf('failover:key')).port, killed.port);
  } finally {
    await traffic?.stop();
    redis.disconnect();
  }
});

test.serial(
  'openStores builds the client REDIS_URL names; the token store works through Sentinel',
  async (t) => {
    const stores = await openStores({
      databaseUrl: undefined,
      redisUrl: sentinel!.url,
      pgliteDir: 'memory://',
    });
    try {
      t.true(stores.redis instanceof Redis);
      t.deepEqual(await stores.redis!.config('GET', 'port'), [
        'port',
        String(await sentinel!.currentMasterPort()),
      ]);
      const payload = { accountId: '1', jti: 'through-sentinel' };
      await stores.tokenStore.upsert('AccessToken', 'through-sentinel', payload, 60);
      t.deepEqual(await stores.tokenStore.find('AccessToken', 'through-sentinel'), payload);
    } finally {
      await stores.close();
    }
    const clustered = await openStores({
      databaseUrl: undefined,
      redisUrl: cluster!.url,
      pgliteDir: 'memory://',
    });
    try {
      t.true(clustered.redis instanceof Cluster);
    } finally {
      await clustered.close();
    }
  },
);

test.serial('redis+sentinel:// gives a client of the current master that follows a failover', async (t) => {
  const redis = await openRedisClient(sentinel!.url, { connectionName: 'sentinel-test' });
  // Stopped on every way out: a loop left running would keep the test file from ever exiting.
  let traffic: ReturnType<typeof trafficDuring> | undefined;
  try {
    t.true(redis instanceof Redis);
    t.is(await sentinel!.currentMasterPort(), sentinel!.master.port);
    await redis.set('sentinel:key', 'kept');
    t.is(await redis.get('sentinel:key'), 'kept');
    t.is(await (redis as Redis).wait(1, 2000), 1);
    traffic = trafficDuring(redis);
    await sentinel!.killMaster();
    t.is(await sentinel!.currentMasterPort(), sentinel!.replica.port);
    t.is(await eventually(redis, () => redis.get('sentinel:key')), 'kept');
    await eventually(redis, () => redis.set('sentinel:after', 'yes'));
    const { failed, unrecognised } = await traffic.stop();
    t.true(failed > 0, 'the master was gone for a while');
    t.deepEqual(unrecognised, []);
    t.is(await redis.get('sentinel:after'), 'yes');
  } finally {
    await traffic?.stop();
    redis.disconnect();
  }
});
