import { inResp, queueCommand, textReply } from '@sched/db/queued-command';
import { coalesceWrites } from '@sched/db/redis-turn';
import test, { type ExecutionContext } from 'ava';
import { Redis } from 'ioredis';
import { createTestRedis } from '../support/redis.ts';

// The commands every request sends (the batched MGET, the token store's scripts) are written by
// us and queued on the ioredis connection (shared/db/src/queued-command.ts). What they send must
// be exactly the RESP ioredis would send, and what they answer exactly what ioredis would answer.

/** ioredis's own RESP text for a command (what a `Command` writes). */
function ioredisResp(name: string, args: string[]): string {
  let text = `*${args.length + 1}\r\n$${Buffer.byteLength(name)}\r\n${name}\r\n`;
  for (const arg of args) text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return text;
}

test('RESP: byte for byte what ioredis writes, for lengths at every digit boundary and any text', (t) => {
  const cases: string[][] = [
    [],
    [''],
    ['a', '', 'b'],
    ['ünïcödé ✓', '😀', '\r\n', '$3\r\nfoo'],
    ['x'.repeat(9), 'x'.repeat(10), 'x'.repeat(99), 'x'.repeat(100), 'x'.repeat(999), 'x'.repeat(1000)],
    Array.from({ length: 10 }, (_, i) => String(i)),
    // Above Node's pool size: a Buffer of its own, same bytes.
    ['é'.repeat(5000), 'y'.repeat(9000)],
  ];
  for (const args of cases) {
    t.is(
      inResp('evalsha', args).toString('utf8'),
      ioredisResp('evalsha', args),
      JSON.stringify(args).slice(0, 60),
    );
  }
});

test('replies: bulk strings as text, arrays element by element, integers and nil unchanged', (t) => {
  t.is(textReply(Buffer.from('ünï')), 'ünï');
  t.deepEqual(textReply([1, Buffer.from('a'), null, [Buffer.from('b'), 2]]), [1, 'a', null, ['b', 2]]);
  t.is(textReply(7), 7);
  t.is(textReply(null), null);
});

async function withRedis(
  t: ExecutionContext,
  run: (redis: Redis, prefix: string) => Promise<void>,
): Promise<void> {
  const testRedis = await createTestRedis();
  if (!testRedis) {
    t.pass('REDIS_URL not set');
    return;
  }
  try {
    await run(testRedis.redis, testRedis.prefix);
  } finally {
    await testRedis.drop();
  }
}

const SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1])
return { 1, redis.call('GET', KEYS[1]), false, { ARGV[2], 42 } }
`;

test('real Redis: a script answers as through ioredis, NOSCRIPT is an error reply, and the connection goes on', (t) =>
  withRedis(t, async (redis, prefix) => {
    const key = `${prefix}script`;
    const sha = (await redis.script('LOAD', SCRIPT)) as string;
    const args = [sha, '1', key, 'värde ✓', 'x'.repeat(5000)];
    const queued = await queueCommand(redis, 'evalsha', args, textReply);
    const direct = await redis.evalsha(sha, 1, key, 'värde ✓', 'x'.repeat(5000));
    t.deepEqual(queued, direct);
    t.deepEqual(queued, [1, 'värde ✓', null, ['x'.repeat(5000), 42]]);

    const missing = queueCommand(redis, 'evalsha', ['0'.repeat(40), '0'], textReply);
    const error = await t.throwsAsync(missing!);
    t.regex(error.message, /^NOSCRIPT/);
    t.is(await redis.get(key), 'värde ✓');
  }));

test('real Redis: queued commands keep their place among ioredis commands, also on a client that writes once per turn', (t) =>
  withRedis(t, async (redis, prefix) => {
    coalesceWrites(redis);
    const key = `${prefix}order`;
    const sha = (await redis.script('LOAD', "return redis.call('INCR', KEYS[1])")) as string;
    // Issued in one turn, none awaited before the next: only the order of issue decides.
    const replies = await Promise.all([
      redis.set(key, '10'),
      queueCommand(redis, 'evalsha', [sha, '1', key], textReply),
      redis.incr(key),
      queueCommand(redis, 'evalsha', [sha, '1', key], textReply),
      redis.get(key),
    ]);
    t.deepEqual(replies, ['OK', 11, 12, 13, '13']);
  }));

test('real Redis: a command whose connection drops before its reply is resent on the new connection', (t) =>
  withRedis(t, async (redis, prefix) => {
    const key = `${prefix}resent`;
    const reconnected = new Promise((resolve) => redis.once('ready', resolve));
    const write = queueCommand(redis, 'set', [key, 'written once'], textReply);
    redis.stream.destroy();
    t.is(await write, 'OK');
    await reconnected;
    t.is(await redis.get(key), 'written once');
  }));

test('clients the queue cannot take get undefined (ioredis’s own path): not ready, key prefix, command timeout, not a Redis', async (t) => {
  const testRedis = await createTestRedis();
  if (!testRedis) return t.pass('REDIS_URL not set');
  const prefixed = new Redis(testRedis.url, { keyPrefix: 'p:' });
  const timed = new Redis(testRedis.url, { commandTimeout: 1000 });
  try {
    await Promise.all([prefixed.ping(), timed.ping()]);
    t.is(queueCommand(prefixed, 'get', ['k'], textReply), undefined);
    t.is(queueCommand(timed, 'get', ['k'], textReply), undefined);
    t.is(queueCommand({ mget: () => [] }, 'get', ['k'], textReply), undefined);
    const ended = new Promise((resolve) => testRedis.redis.once('end', resolve));
    await testRedis.redis.quit();
    await ended;
    t.is(queueCommand(testRedis.redis, 'get', ['k'], textReply), undefined);
  } finally {
    prefixed.disconnect();
    timed.disconnect();
  }
});
