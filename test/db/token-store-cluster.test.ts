import { randomBytes, randomUUID } from 'node:crypto';
import { openRedisClient, type RedisClient } from '@sched/db/redis';
import { grantIndexKey, tagOf, tagPrefix, taggedTokenId } from '@sched/db/token-store/keys';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import type { RecordWrite, TokenStore } from '@sched/db/token-store/types';
import test from 'ava';
import calculateSlot from 'cluster-key-slot';
import { type Cluster, Redis } from 'ioredis';
import { startRedisCluster, type TestRedisCluster } from '../support/redis-cluster.ts';

// The token store on a real Redis Cluster (docs/token-store.md "Redis Cluster"): every script's
// keys hash to one slot, and the API's batched read costs at most one round trip per node.
// The contract suites (token-store*.test.ts) also run on a cluster; this file checks the rules
// themselves, on a recording client whose every script call is inspected.

let cluster: TestRedisCluster;
let client: RedisClient;
const calls: Array<{ command: string; keys: string[] }> = [];
/** Errors the next EVALSHA calls fail with instead of reaching the cluster. */
const evalshaFailures: Error[] = [];

test.before(async () => {
  cluster = await startRedisCluster();
  client = await openRedisClient(cluster.url, { connectionName: 'slots-test' });
  // Record the keys of every script the store runs (EVALSHA / EVAL: numkeys, then the keys).
  for (const command of ['evalsha', 'eval'] as const) {
    const own = (client as Cluster)[command].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[command] = (...args: unknown[]) => {
      const count = Number(args[1]);
      calls.push({ command, keys: args.slice(2, 2 + count).map(String) });
      const failure = command === 'evalsha' ? evalshaFailures.shift() : undefined;
      return failure ? Promise.reject(failure) : own(...args);
    };
  }
});

test.after.always(async () => {
  client?.disconnect();
  await cluster?.stop();
});

const unique = (label: string) => `${label}-${randomUUID()}`;
const account = () => String(Math.floor(Math.random() * 1e9));

let prefix = '';
function store(): TokenStore {
  prefix = `test:${randomBytes(4).toString('hex')}:`;
  return createRedisTokenStore({ redis: client, prefix });
}

async function authorize(s: TokenStore, accountId: string, clientId: string) {
  const grantId = `${unique('g')}.${randomBytes(6).toString('base64url')}`;
  const write = (model: string, id: string, ttl: number): RecordWrite => ({
    model,
    id,
    payload: { kind: model, jti: id, accountId, clientId, grantId, iat: 1, openid: { scope: 'A' } },
    expiresInSeconds: ttl,
  });
  const code = taggedTokenId(unique('code'), grantId);
  await s.consumeAndUpsert(undefined, [
    {
      ...write('Grant', grantId, 3600),
      payload: { kind: 'Grant', jti: grantId, accountId, clientId, iat: 1 },
    },
    write('AuthorizationCode', code, 60),
  ]);
  const access = taggedTokenId(unique('at'), grantId);
  const refresh = taggedTokenId(unique('rt'), grantId);
  await s.consumeAndUpsert({ model: 'AuthorizationCode', id: code }, [
    write('AccessToken', access, 600),
    write('RefreshToken', refresh, 3600),
  ]);
  const next = taggedTokenId(unique('at'), grantId);
  await s.consumeAndUpsertOrRead(
    { model: 'RefreshToken', id: refresh },
    [
      write('AccessToken', next, 600),
      { model: 'RefreshRetry', id: refresh, payload: { kind: 'Kept' }, expiresInSeconds: 10 },
    ],
    { model: 'RefreshRetry', id: refresh },
  );
  return { grantId, access, next };
}

test.serial(
  'every script of the store touches one slot, and a grant index only keys of its slot',
  async (t) => {
    const s = store();
    const user = account();
    const flows = await Promise.all([authorize(s, user, 'client-a'), authorize(s, user, 'client-b')]);
    await s.upsert(
      'Session',
      unique('session'),
      { kind: 'Session', accountId: user, uid: unique('uid') },
      600,
    );
    for (const flow of flows) {
      // Members of a grant index become keys inside REVOKE_GRANT / DESTROY: the grant's tag, its slot.
      const index = grantIndexKey(prefix, flow.grantId);
      const members = await client.zrange(index, 0, -1);
      t.is(members.length, 4, 'code, two access tokens, refresh token');
      for (const member of members)
        t.is(calculateSlot(`${tagPrefix(prefix, tagOf(flow.grantId))}${member}`), calculateSlot(index));
    }
    await s.destroy('AccessToken', flows[0]!.access);
    t.true((await s.listGrantsOfUser(user)).length === 2);
    t.is(
      await s.revokeByGrantId(flows[0]!.grantId),
      3,
      'the consumed code and refresh token and the new access token',
    );
    t.true((await s.revokeByUser(user)) >= 1);
    t.is(await s.revokeSessionsOfUser(user), 1);
    await s.hit(unique('rate'), 60);

    t.true(calls.length > 20);
    for (const call of calls) {
      const slots = new Set(call.keys.map((key) => calculateSlot(key)));
      t.true(slots.size <= 1, `${call.command} of ${call.keys.join(' ')} spans ${slots.size} slots`);
    }
  },
);

test.serial(
  "a NOSCRIPT reported inside the Cluster's redirection error runs the script by its source",
  async (t) => {
    const s = store();
    const key = unique('rate');
    t.is((await s.hit(key, 60)).count, 1);
    // What ioredis's Cluster throws when its last redirection lands on a node without the script
    // (a newly promoted master): the script did not run, so running it by its source is safe.
    evalshaFailures.push(
      new Error('Too many Cluster redirections. Last error: ReplyError: NOSCRIPT No matching script.'),
    );
    calls.length = 0;
    t.is((await s.hit(key, 60)).count, 2);
    t.deepEqual(
      calls.map((call) => call.command),
      ['evalsha', 'eval'],
    );
    // Any other error is the caller's, not a reason to run the script again.
    evalshaFailures.push(new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN'));
    await t.throwsAsync(s.hit(key, 60), { message: /CLUSTERDOWN/ });
    t.is((await s.hit(key, 60)).count, 3);
  },
);

test.serial('the batched read of many requests costs at most one pipeline per node', async (t) => {
  const s = store();
  const tokens = await Promise.all(Array.from({ length: 12 }, () => authorize(s, account(), 'client-r')));
  const cluster = client as Cluster;
  const own = cluster.pipeline.bind(cluster);
  let pipelines = 0;
  let mgets = 0;
  (cluster as unknown as Record<string, unknown>)['pipeline'] = (...args: unknown[]) => {
    pipelines++;
    const pipeline = own(...(args as []));
    const mget = pipeline.mget.bind(pipeline);
    pipeline.mget = ((...keys: unknown[]) => {
      mgets++;
      return mget(...(keys as [string[]]));
    }) as typeof pipeline.mget;
    return pipeline;
  };
  try {
    // One turn: every request's token and its version keys, read together.
    const reads = await Promise.all(
      tokens.map(({ next }, i) => s.findWithVersions('AccessToken', next, [`client:${i}`, 'user:1'])),
    );
    for (const [i, read] of reads.entries()) {
      t.is(read.record?.jti, tokens[i]!.next);
      t.deepEqual(read.versions, [0, 0]);
    }
    t.true(pipelines >= 1 && pipelines <= 3, `${pipelines} pipelines for 3 masters`);
    t.true(mgets > pipelines, 'several slots share a node pipeline');
  } finally {
    delete (cluster as unknown as Record<string, unknown>)['pipeline'];
  }
});

test.serial('one node: the batched read stays a single MGET', async (t) => {
  const url = process.env.REDIS_URL;
  if (!url) return t.pass('no REDIS_URL');
  const redis = new Redis(url);
  try {
    const s = createRedisTokenStore({ redis, prefix: `test:${randomBytes(4).toString('hex')}:` });
    const own = redis.mget.bind(redis);
    let mgets = 0;
    redis.mget = ((...args: unknown[]) => {
      mgets++;
      return own(...(args as [string[]]));
    }) as typeof redis.mget;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => s.findWithVersions('AccessToken', unique('at'), [`v${i}`])),
    );
    t.is(mgets, 1);
  } finally {
    redis.disconnect();
  }
});
