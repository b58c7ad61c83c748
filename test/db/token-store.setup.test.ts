import { createServer } from 'node:net';
import { describeRedisError, describeRedisTarget, openRedis, RedisUnavailableError } from '@sched/db/redis';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { TOKEN_TABLES } from '@sched/db/token-store/keys';
import test from 'ava';
import * as tokenStoreMigration from '../../migrations/0002_token_store.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// Setting up the token store: the Redis client (fail fast, reconnect) and the SQL migration.

const withRedis = process.env.REDIS_URL ? test.serial : test.serial.skip;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('openRedis fails fast with one line naming the target when nothing listens', async (t) => {
  const port = await closedPort();
  const error = await t.throwsAsync(() => openRedis(`redis://127.0.0.1:${port}`), {
    instanceOf: RedisUnavailableError,
  });
  t.is(error?.message, `cannot reach Redis at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
});

test('openRedis gives up after its connect timeout when the server never answers', async (t) => {
  // A TCP server that accepts and stays silent: the Redis handshake never completes.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  try {
    const error = await t.throwsAsync(
      () => openRedis(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 300 }),
      {
        instanceOf: RedisUnavailableError,
      },
    );
    t.regex(error?.message ?? '', new RegExp(`^cannot reach Redis at 127\\.0\\.0\\.1:${port}: `));
    t.false(error?.message.includes('\n'));
  } finally {
    silent.close();
  }
});

test('describeRedisTarget hides credentials; describeRedisError gives one line', (t) => {
  t.is(describeRedisTarget('redis://user:secret@cache.internal:6380/2'), 'cache.internal:6380/2');
  t.is(describeRedisTarget('redis://localhost'), 'localhost:6379');
  t.is(describeRedisTarget('not a url'), 'REDIS_URL');
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1\n    at stack'), {
    code: 'ECONNREFUSED',
  });
  t.is(describeRedisError(refused), 'connect ECONNREFUSED 127.0.0.1:1');
  t.is(describeRedisError(Object.assign(new Error('boom'), { code: 'EPIPE' })), 'EPIPE: boom');
  t.is(describeRedisError(new AggregateError([new Error('first')], 'many')), 'first');
  t.is(describeRedisError('plain'), 'plain');
});

withRedis(
  'a Redis outage gives errors, not hangs, and the client reconnects when Redis returns',
  async (t) => {
    const target = new URL(process.env.REDIS_URL!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const url = new URL(process.env.REDIS_URL!);
    url.host = `127.0.0.1:${proxy.port}`;
    const redis = await openRedis(url.toString());
    const store = createRedisTokenStore({ redis, prefix: `test-outage-${proxy.port}:` });
    try {
      await t.notThrowsAsync(() => store.ping());
      await proxy.stop();
      await t.throwsAsync(() => store.ping());
      await t.throwsAsync(() => store.find('AccessToken', 'x'));
      await proxy.start();
      let up = false;
      for (let attempt = 0; attempt < 50 && !up; attempt++) {
        up = await store.ping().then(
          () => true,
          () => false,
        );
        if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      t.true(up, 'reconnected');
    } finally {
      await store.close();
      await proxy.stop();
    }
    t.is(redis.status, 'end', 'close() ends the client');
  },
);

test('migration 0002: down drops the token tables, up creates them again', async (t) => {
  const database = await createTestDatabase({ backend: 'pglite' });
  try {
    const { knex } = database.db;
    const tables = async () => [
      await knex.schema.hasTable(TOKEN_TABLES.records),
      await knex.schema.hasTable(TOKEN_TABLES.counters),
    ];
    t.deepEqual(await tables(), [true, true]);
    await tokenStoreMigration.down(knex);
    t.deepEqual(await tables(), [false, false]);
    await tokenStoreMigration.up(knex);
    t.deepEqual(await tables(), [true, true]);
  } finally {
    await database.drop();
  }
});
