import type { Redis } from 'ioredis';
import { queueCommand } from '../queued-command.ts';

type Values = (string | null)[];

/**
 * The batched read's `MGET` (mget-batch.ts), queued on the connection by us (queued-command.ts)
 * rather than built as an ioredis `Command`: under load, one `Command` built per batch made the
 * API's young generation promote about 130 KB per scavenge (about 5 KB with this), which fed the
 * mark-compacts behind the API's p99 tail. A `Command` built per request promotes nothing; one
 * built at the turn's end does, even when it is never sent
 * (test/bench/diagnostics/batched-read-promotion.ts, `VIA=queue` against the default;
 * docs/performance.md, "Found: an ioredis `Command` per batch"). Why V8 keeps it alive across two
 * scavenges was not found. A client the queue cannot take gets the ordinary `mget`.
 */
export function queuedMget(redis: Pick<Redis, 'mget'>, keys: string[]): Promise<Values> {
  return queueCommand(redis, 'mget', keys, toStrings) ?? redis.mget(keys);
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
