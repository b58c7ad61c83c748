import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { turnOf } from './redis-turn.ts';

/**
 * A command written to a ready ioredis connection by us and queued on that connection as a plain
 * `Respondable`, the queue item type ioredis declares: ioredis's own reader parses the reply and
 * hands it over in order, as for any of its commands.
 *
 * Why not ioredis's methods: each call builds a `Command` (its arguments flattened and copied,
 * a promise, a RESP text made of one concatenation per argument that the socket write flattens
 * into a copy), and a `Command` built at a turn's end was kept alive across young-generation
 * collections and promoted (docs/performance.md, "Found: an ioredis `Command` per batch", "Scripts
 * queued, RESP in one Buffer"). Used for the commands every request sends: the resource API's
 * batched `MGET` and the token store's scripts (`EVALSHA`).
 *
 * Order and failure are ioredis's: the write and the queue entry happen together exactly as in its
 * `sendCommand`, so the command reaches Redis after every command issued before it, and its reply
 * is the next one read; a lost connection rejects it, or resends it once reconnected (hence
 * `toWritable`, what a resend uses of a `Command`). On a client that writes once per turn
 * (redis-turn.ts) the write joins the turn's.
 *
 * Returns undefined when the command must take ioredis's own path: a connection that is not
 * ready, one with a key prefix or a command timeout (options ioredis applies), a subscriber, or
 * any other client (a Cluster routes by slot).
 */
export function queueCommand<T>(
  redis: object,
  name: string,
  args: string[],
  decode: (reply: unknown) => T,
): Promise<T> | undefined {
  if (!(redis instanceof Redis) || redis.status !== 'ready' || redis.condition?.subscriber) return undefined;
  const { keyPrefix, commandTimeout } = redis.options;
  if (keyPrefix || commandTimeout !== undefined) return undefined;
  const stream = redis.stream as Socket | undefined;
  if (!stream?.writable) return undefined;
  return new Promise<T>((resolve, reject) => {
    const entry = queuedEntry(name, args, decode, resolve, reject);
    turnOf(redis)?.join(stream);
    stream.write(entry.toWritable());
    // No `stream`, as ioredis queues its own commands: a resend goes to the connection of then.
    redis.commandQueue.push({
      command: entry,
      stream: undefined as never,
      select: redis.condition?.select ?? 0,
    });
  });
}

/** What ioredis uses of a queued command: a `Respondable`, and `toWritable` for a resend. */
interface QueuedEntry {
  name: string;
  inTransaction: false;
  /**
   * Not traced: the command never passes ioredis's `sendCommand`, so its `ioredis:command` tracing
   * channel does not see it, and this flag keeps a resend after a reconnection untraced too.
   */
  isTraced: true;
  args: string[];
  resolve(reply: unknown): void;
  reject(error: Error): void;
  toWritable(): Buffer;
}

/**
 * The queue entry, a plain object holding neither its promise nor a class's prototype: measured
 * (membership-api.ts, `--trace-gc-nvp`), an entry built by a class constructor, with or without
 * its promise, promoted 115 KB per scavenge like a `Command`; this literal 5 KB.
 */
function queuedEntry<T>(
  name: string,
  args: string[],
  decode: (reply: unknown) => T,
  resolve: (value: T) => void,
  reject: (error: Error) => void,
): QueuedEntry {
  return {
    name,
    inTransaction: false,
    isTraced: true,
    args,
    // Called from ioredis's reader: a reply we cannot read fails this command, not the connection.
    resolve: (reply) => {
      try {
        resolve(decode(reply));
      } catch (error) {
        reject(error as Error);
      }
    },
    reject,
    toWritable: () => inResp(name, args),
  };
}

/**
 * The command in RESP, as ioredis writes it (an array of bulk strings), written into one Buffer
 * (from Node's shared pool below 4 KB): text concatenated argument by argument left a chain of
 * pieces per argument that the socket write then flattened into a copy, about 6 KB of young
 * garbage per token refresh (whose scripts carry 2 to 3 KB of records).
 */
export function inResp(name: string, args: readonly string[]): Buffer {
  let size = bulkSize(Buffer.byteLength(name)) + 1 + digits(args.length + 1) + 2;
  const lengths = new Array<number>(args.length);
  for (let i = 0; i < args.length; i++) {
    const length = Buffer.byteLength(args[i]!);
    lengths[i] = length;
    size += bulkSize(length);
  }
  const buffer = Buffer.allocUnsafe(size);
  buffer[0] = 0x2a; // '*'
  let at = endLine(buffer, putNumber(buffer, 1, args.length + 1));
  at = putBulk(buffer, at, name, Buffer.byteLength(name));
  for (let i = 0; i < args.length; i++) at = putBulk(buffer, at, args[i]!, lengths[i]!);
  return buffer;
}

/** `$<length>\r\n<bytes>\r\n` */
const bulkSize = (length: number) => 1 + digits(length) + 2 + length + 2;

function digits(n: number): number {
  let count = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    count++;
  }
  return count;
}

function putNumber(buffer: Buffer, at: number, n: number): number {
  const end = at + digits(n);
  for (let i = end - 1; i >= at; i--) {
    buffer[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}

function endLine(buffer: Buffer, at: number): number {
  buffer[at] = 0x0d;
  buffer[at + 1] = 0x0a;
  return at + 2;
}

function putBulk(buffer: Buffer, at: number, text: string, length: number): number {
  buffer[at] = 0x24; // '$'
  at = endLine(buffer, putNumber(buffer, at + 1, length));
  at += buffer.write(text, at, length, 'utf8');
  return endLine(buffer, at);
}

/**
 * A reply as ioredis hands its text commands' replies over: bulk strings (which its reader gives
 * as Buffers) as UTF-8 text, arrays element by element, integers and nil as they are.
 */
export function textReply(reply: unknown): unknown {
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (Array.isArray(reply)) {
    const values: unknown[] = new Array(reply.length);
    for (let i = 0; i < reply.length; i++) values[i] = textReply(reply[i]);
    return values;
  }
  return reply;
}
