import { Cluster, type Redis } from 'ioredis';
import { turnOf } from '../redis-turn.ts';
import { mgetByNode } from './cluster-mget.ts';
import { queuedMget } from './queued-mget.ts';

/** A burst larger than this is cut into several MGETs rather than one very large reply. */
export const MAX_KEYS_PER_MGET = 1024;

type Values = (string | null)[];

interface Waiter {
  count: number;
  resolve(values: Values): void;
  reject(error: unknown): void;
}

/**
 * The reads of every request of one event-loop turn as ONE `MGET`, each caller getting its own
 * slice of the reply.
 *
 * Why: the resource API reads the token store once per request, and ioredis's cost is per command
 * (a Command, its promise, reply conversion), not per key. Under load the requests parsed in one
 * turn each sent their own MGET; batched, the read costs about a third of the client CPU
 * (`npm run bench redis-read`), and one socket write serves the whole turn.
 *
 * Freshness is that of a read issued at the end of the turn: the client sends commands in the
 * order they are issued (no auto-pipelining, see redis.ts), so every command issued before any of
 * the batch's reads, a revocation among them, reaches Redis first. A read may see a write issued
 * later in the same turn, never miss an earlier one.
 *
 * On one node (or Sentinel's master) the `MGET` goes out through queued-mget.ts, not ioredis's
 * `Command`, which promoted the batch to the old generation under load.
 *
 * On a Redis Cluster the batch is one pipeline of `MGET`s per node (cluster-mget.ts): at most one
 * round trip per node. A single node keeps the one `MGET`, with no per-key work.
 */
export function createMgetBatcher(
  redis: Pick<Redis, 'mget'> | Cluster,
  maxKeys = MAX_KEYS_PER_MGET,
): (keys: readonly string[]) => Promise<Values> {
  const mget: (keys: string[]) => Promise<Values> =
    redis instanceof Cluster ? (batch) => mgetByNode(redis, batch) : (batch) => queuedMget(redis, batch);
  let keys: string[] = [];
  let waiters: Waiter[] = [];
  let scheduled = false;
  // With a client that writes once per turn (redis-turn.ts) the batch joins that write.
  const turn = turnOf(redis);
  const atTurnEnd = turn ? (task: () => void) => turn.atEnd(task) : setImmediate;

  function send(): void {
    const batchKeys = keys;
    const batchWaiters = waiters;
    keys = [];
    waiters = [];
    if (batchWaiters.length === 0) return;
    const fail = (error: unknown) => {
      for (const waiter of batchWaiters) waiter.reject(error);
    };
    let reply: Promise<Values>;
    try {
      reply = mget(batchKeys);
    } catch (error) {
      // Sent from a timer: a synchronous throw would otherwise escape as an uncaught exception.
      fail(error);
      return;
    }
    reply.then((values) => {
      let at = 0;
      for (const waiter of batchWaiters) {
        waiter.resolve(values.slice(at, at + waiter.count));
        at += waiter.count;
      }
    }, fail);
  }

  function sendScheduled(): void {
    scheduled = false;
    send();
  }

  return (requestKeys) =>
    new Promise<Values>((resolve, reject) => {
      for (const key of requestKeys) keys.push(key);
      waiters.push({ count: requestKeys.length, resolve, reject });
      if (keys.length >= maxKeys) send();
      else if (!scheduled) {
        scheduled = true;
        // After the I/O callbacks of this turn: the other requests parsed now join the batch.
        atTurnEnd(sendScheduled);
      }
    });
}
