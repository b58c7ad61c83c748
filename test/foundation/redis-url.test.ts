import { ConfigError, loadConfig } from '@sched/kit/config';
import { describeTarget, parseRedisUrl, RedisUrlError } from '@sched/kit/redis-url';
import { describeRedisTarget, openRedis } from '@sched/db/redis';
import test from 'ava';

// REDIS_URL's three forms (one node, Sentinel, Cluster) and the clear start-up error for others.

test('redis:// and rediss:// are one node', (t) => {
  t.like(parseRedisUrl('redis://:secret@cache.internal:6380/2'), {
    kind: 'single',
    host: 'cache.internal',
    port: 6380,
    db: 2,
  });
  t.like(parseRedisUrl('rediss://cache'), { kind: 'single', port: 6379, db: 0 });
});

test('redis+sentinel:// lists the sentinels and names the master set (and optionally the db)', (t) => {
  t.deepEqual(
    parseRedisUrl('redis+sentinel://user:p%40ss@s1:26380,s2,[::1]:26381/mymaster/3?sentinelPassword=sp'),
    {
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26380 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26381 },
      ],
      masterName: 'mymaster',
      db: 3,
      username: 'user',
      password: 'p@ss',
      sentinelPassword: 'sp',
    },
  );
  t.like(parseRedisUrl('redis+sentinel://s1/mymaster'), { masterName: 'mymaster', db: 0 });
});

test('redis+cluster:// lists seed nodes', (t) => {
  t.deepEqual(parseRedisUrl('redis+cluster://:pw@n1:7000,n2:7001,n3'), {
    kind: 'cluster',
    nodes: [
      { host: 'n1', port: 7000 },
      { host: 'n2', port: 7001 },
      { host: 'n3', port: 6379 },
    ],
    password: 'pw',
  });
  t.like(parseRedisUrl('redis+cluster://n1:7000/'), { kind: 'cluster' });
});

test('host names are those redis:// takes (underscores, as Docker Compose service names have); schemes are case-insensitive', (t) => {
  t.like(parseRedisUrl('redis://redis_master:6379'), { kind: 'single', host: 'redis_master' });
  t.like(parseRedisUrl('redis+sentinel://redis_sentinel_1,redis_sentinel_2:26380/mymaster'), {
    kind: 'sentinel',
    sentinels: [
      { host: 'redis_sentinel_1', port: 26379 },
      { host: 'redis_sentinel_2', port: 26380 },
    ],
  });
  t.like(parseRedisUrl('redis+cluster://redis_node_1:7000'), {
    nodes: [{ host: 'redis_node_1', port: 7000 }],
  });
  t.like(parseRedisUrl('Redis+Sentinel://s1/mymaster'), { kind: 'sentinel', masterName: 'mymaster' });
  t.like(parseRedisUrl('REDIS+CLUSTER://n1:7000'), { kind: 'cluster' });
});

const bad: Array<[string, RegExp]> = [
  [
    'http://cache:6379',
    /must start with redis:\/\/, rediss:\/\/, redis\+sentinel:\/\/ or redis\+cluster:\/\//,
  ],
  ['cache:6379', /must start with/],
  ['redis://cache/zero', /not a database number/],
  ['redis+sentinel://s1:26379', /names no master set/],
  ['redis+sentinel://s1:26379/mymaster/x', /\/masterName or \/masterName\/db/],
  ['redis+sentinel://s1:26379/mymaster?password=x', /does not take the parameter 'password'/],
  ['redis+cluster://n1:7000/1', /takes no path/],
  ['redis+cluster://n1:99999', /'n1:99999' is not a host\[:port\]/],
  ['redis+cluster://n1:7000,,n2', /'' is not a host\[:port\]/],
  ['redis+cluster://', /names no host|is not a host/],
  ['redis+cluster://n1#frag', /not a valid URL/],
  ['redis+sentinel://s1/my%ZZmaster', /the path is not valid percent-encoding/],
  ['redis+sentinel://u:p%ZZ@s1/mymaster', /the credentials are not valid percent-encoding/],
];

for (const [url, message] of bad) {
  test(`${url} is refused: ${message.source}`, (t) => {
    t.throws(() => parseRedisUrl(url), { instanceOf: RedisUrlError, message });
  });
}

test('a bad REDIS_URL stops start-up with a one-line error naming the variable, without the password', (t) => {
  const error = t.throws(() => loadConfig({ REDIS_URL: 'redis+cluster://:hunter2@n1:7000/4' }), {
    instanceOf: ConfigError,
  });
  t.regex(error!.message, /REDIS_URL/);
  t.regex(error!.message, /takes no path/);
  t.false(error!.message.includes('hunter2'));
  t.false(error!.message.includes('\n'));
  for (const url of ['redis://c:6379/1', 'redis+sentinel://s1,s2/m', 'redis+cluster://n1,n2']) {
    t.is(loadConfig({ REDIS_URL: url }).redisUrl, url);
  }
});

test('logs and errors describe the target without credentials', (t) => {
  t.is(
    describeRedisTarget('redis+sentinel://u:secret@s1,s2:26380/mymaster/1'),
    "sentinel master 'mymaster' via s1:26379,s2:26380 db 1",
  );
  t.is(describeRedisTarget('redis+cluster://:secret@n1:7000,[::1]:7001'), 'cluster via n1:7000,[::1]:7001');
  t.is(describeTarget(parseRedisUrl('redis://:secret@cache:6380/2')), 'cache:6380/2');
});

test('openRedis (one connection) refuses a cluster URL; openRedisClient takes it', async (t) => {
  await t.throwsAsync(() => openRedis('redis+cluster://127.0.0.1:7000'), {
    instanceOf: RedisUrlError,
    message: /openRedisClient/,
  });
});
