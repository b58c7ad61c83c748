import { createServer } from 'node:http';
import { queuedMget } from '@sched/db/token-store/queued-mget';
import { Redis } from 'ioredis';

/**
 * The smallest program that shows what the token store's batched read promotes (docs/performance.md,
 * "What the batched token read promotes"): an HTTP server whose every request reads 7 keys from
 * Redis, either in one MGET per request (`MODE=plain`) or in one MGET per event-loop turn shared by
 * the turn's requests (`MODE=batch`, as mget-batch.ts does). `SCHEDULE=tick` sends the batch at
 * the end of the current socket callback instead of the turn's end; `MAX_BATCH=n` sends it as soon
 * as n requests wait (the rest at the turn's end). Run it under
 * `node --max-semi-space-size=8 --trace-gc-nvp`, load it (`wrk -c50`), and sum the scavenges'
 * `promoted=`: about 130 KB per scavenge with `MODE=batch`, 1 to 3 KB with `plain` or with
 * `SCHEDULE=tick`; with `MAX_BATCH` 4, 8 and 16, 1.5, 5.5 and 42 KB. Without the HTTP server (the
 * same reads driven by a loop) neither promotes. `VIA=queue` sends each batch as the token store
 * now does (queued-mget.ts: written by us, queued as a plain entry, not an ioredis `Command`):
 * about 1 KB per scavenge.
 */

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: false });
const keys = Array.from({ length: 7 }, (_, i) => `batched-read-promotion:${i}`);
const batched = process.env.MODE !== 'plain';
const schedule: (task: () => void) => void =
  process.env.SCHEDULE === 'tick' ? (task) => process.nextTick(task) : (task) => setImmediate(task);

let waiting: { count: number; resolve: (values: (string | null)[]) => void }[] = [];
let waitingKeys: string[] = [];
let scheduled = false;
const maxBatch = Number(process.env.MAX_BATCH ?? 1_000_000);

function sendBatch(): void {
  scheduled = false;
  if (waiting.length === 0) return;
  const batch = waiting;
  const batchKeys = waitingKeys;
  waiting = [];
  waitingKeys = [];
  const reply = process.env.VIA === 'queue' ? queuedMget(redis, batchKeys) : redis.mget(batchKeys);
  void reply.then((values) => {
    let at = 0;
    for (const waiter of batch) {
      waiter.resolve(values.slice(at, at + waiter.count));
      at += waiter.count;
    }
  });
}

function batchedMget(wanted: readonly string[]): Promise<(string | null)[]> {
  return new Promise((resolve) => {
    for (const key of wanted) waitingKeys.push(key);
    waiting.push({ count: wanted.length, resolve });
    if (waiting.length >= maxBatch) sendBatch();
    else if (!scheduled) {
      scheduled = true;
      schedule(sendBatch);
    }
  });
}

const server = createServer((_req, res) => {
  void (batched ? batchedMget(keys) : redis.mget(keys)).then(() => res.end('{}'));
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(JSON.stringify({ url: `http://127.0.0.1:${address.port}/` }));
});
