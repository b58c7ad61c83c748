import type { Socket } from 'node:net';
import { Redis } from 'ioredis';

type Values = (string | null)[];

/**
 * The batched read's `MGET` (mget-batch.ts) written to a ready ioredis connection by us and queued
 * on that connection as a plain `Respondable`, the queue item type ioredis declares: ioredis's own
 * reader parses the reply and hands it over in order, as for any of its commands.
 *
 * Why not `redis.mget`: under load, one ioredis `Command` built per batch made the API's young
 * generation promote about 130 KB per scavenge (about 5 KB with this), which fed the mark-compacts
 * behind the API's p99 tail. A `Command` built per request promotes nothing; one built at the
 * turn's end does, even when it is never sent (test/bench/diagnostics/batched-read-promotion.ts,
 * `VIA=queue` against the default; docs/performance.md, "Found: an ioredis `Command` per batch").
 * Why V8 keeps it alive across two scavenges was not found.
 *
 * Order and failure are ioredis's: the write and the queue entry happen together exactly as in
 * its `sendCommand`, so the `MGET` reaches Redis after every command issued before it, and its
 * reply is the next one read; a lost connection rejects it, or resends it once reconnected (hence
 * `toWritable`, what a resend uses of a `Command`). A connection that is not ready, one with a key
 * prefix or a command timeout, or any other client (a Cluster has its own path), gets the
 * ordinary `mget`.
 */
export function queuedMget(redis: Pick<Redis, 'mget'>, keys: string[]): Promise<Values> {
  if (!(redis instanceof Redis) || redis.status !== 'ready' || redis.condition?.subscriber) {
    return redis.mget(keys);
  }
  // Options that change what ioredis sends or how long it waits: its own path applies them.
  const { keyPrefix, commandTimeout } = redis.options;
  if (keyPrefix || commandTimeout !== undefined) return redis.mget(keys);
  const stream = redis.stream as Socket | undefined;
  if (!stream?.writable) return redis.mget(keys);
  return new Promise<Values>((resolve, reject) => {
    const read = queuedRead(keys, resolve, reject);
    stream.write(read.toWritable());
    // No `stream`, as ioredis queues its own commands: a resend goes to the connection of then.
    redis.commandQueue.push({
      command: read,
      stream: undefined as never,
      select: redis.condition?.select ?? 0,
    });
  });
}

/** What ioredis uses of a queued command: a `Respondable`, and `toWritable` for a resend. */
interface QueuedRead {
  name: 'mget';
  inTransaction: false;
  /**
   * Not traced: the read never passes ioredis's `sendCommand`, so its `ioredis:command` tracing
   * channel does not see it, and this flag keeps a resend after a reconnection untraced too.
   */
  isTraced: true;
  args: string[];
  resolve(reply: unknown): void;
  reject(error: Error): void;
  toWritable(): string;
}

/**
 * The queue entry, a plain object holding neither its promise nor a class's prototype: measured
 * (membership-api.ts, `--trace-gc-nvp`), an entry built by a class constructor, with or without
 * its promise, promoted 115 KB per scavenge like a `Command`; this literal 5 KB.
 */
function queuedRead(
  keys: string[],
  resolve: (values: Values) => void,
  reject: (error: Error) => void,
): QueuedRead {
  return {
    name: 'mget',
    inTransaction: false,
    isTraced: true,
    args: keys,
    // Called from ioredis's reader: a reply we cannot read fails this read, not the connection.
    resolve: (reply) => {
      try {
        resolve(toStrings(reply));
      } catch (error) {
        reject(error as Error);
      }
    },
    reject,
    toWritable: () => mgetInResp(keys),
  };
}

/** The command in RESP, as ioredis writes it: an array of bulk strings. */
function mgetInResp(keys: readonly string[]): string {
  let text = `*${keys.length + 1}\r\n$4\r\nmget\r\n`;
  for (const key of keys) text += `$${Buffer.byteLength(key)}\r\n${key}\r\n`;
  return text;
}

/** ioredis's reader hands over bulk strings as buffers. */
function toStrings(reply: unknown): Values {
  if (!Array.isArray(reply)) throw new TypeError('MGET answered with something other than an array');
  const values: Values = new Array(reply.length);
  for (let i = 0; i < reply.length; i++) {
    const value: unknown = reply[i];
    values[i] = value === null ? null : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  return values;
}
