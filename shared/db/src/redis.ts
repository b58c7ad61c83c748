import { Redis, type RedisOptions } from 'ioredis';
import { attachRedisMonitor, BackendMonitor, type OutageLog } from './availability.ts';
import { coalesceWrites } from './redis-turn.ts';

/** Redis is unreachable or refused us; the message is one line fit for an operator. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

export interface OpenRedisOptions {
  /** How long the first connection may take before start-up fails (default 5 s). */
  connectTimeoutMs?: number;
  /** Connection name shown by CLIENT LIST. */
  connectionName?: string;
  /** Where connection errors after start-up go (ioredis reports each failed reconnect). */
  onError?: (error: Error) => void;
  /** Where the two lines of an outage go (down, back); also settable later on `redisMonitor(redis)`. */
  outageLog?: OutageLog;
}

/** `host:port/db` of a redis:// URL, without credentials. */
export function describeRedisTarget(url: string): string {
  try {
    const parsed = new URL(url);
    const db = parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : '';
    return `${parsed.hostname}:${parsed.port || 6379}${db}`;
  } catch {
    return 'REDIS_URL';
  }
}

/** A one-line description of a Redis error (ioredis errors may carry nested causes and stacks). */
export function describeRedisError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeRedisError(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = (error.message.split('\n')[0] ?? '').trim() || error.name;
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

/**
 * Connects to Redis, failing fast with a RedisUnavailableError when it cannot be reached at start.
 * Afterwards the client reconnects by itself (backoff up to 1 s) while commands issued during an
 * outage are refused at once (no offline queue; `backendFailure` in availability.ts recognises the
 * refusal): callers see a 503 within milliseconds, not a wait on retries. The client's monitor
 * (`redisMonitor(redis)`) logs once when the connection is lost and once when it is ready again.
 */
export async function openRedis(url: string, options: OpenRedisOptions = {}): Promise<Redis> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    // Commands issued while disconnected fail at once instead of waiting in a queue for the
    // reconnection (contract §13: an outage is a 503 within a second, not a wait on retries).
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
    // Off: ioredis's auto-pipeline keeps commands and replies alive across young-generation
    // collections (4 MB promoted per scavenge under load, pauses 10x the bare handler's), and it
    // groups per socket callback only. Each turn's commands share one write instead
    // (redis-turn.ts), the resource API's hot read is batched by the token store (mget-batch.ts),
    // and every command goes out in the order it was issued.
    enableAutoPipelining: false,
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
  };
  const redis = new Redis(url, redisOptions);
  // Without a listener ioredis prints every failed reconnect to stderr as "Unhandled error event".
  let connectError: unknown;
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    if (redis.status !== 'ready') connectError ??= error;
    lastError = error;
    options.onError?.(error);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${connectTimeoutMs} ms`)),
          connectTimeoutMs,
        );
      }),
    ]);
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    // "Connection is closed." hides the socket error (ECONNREFUSED, ENOTFOUND, ...) seen just before.
    const reason = describeRedisError(connectError ?? error);
    throw new RedisUnavailableError(`cannot reach Redis at ${describeRedisTarget(url)}: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
  coalesceWrites(redis);
  const monitor = new BackendMonitor('redis', describeRedisTarget(url), options.outageLog);
  attachRedisMonitor(redis, monitor);
  // 'reconnecting' follows only a connection lost unexpectedly (not quit() or disconnect()).
  redis.on('reconnecting', () => monitor.down(lastError ? describeRedisError(lastError) : 'connection lost'));
  redis.on('ready', () => {
    lastError = undefined;
    monitor.up();
  });
  return redis;
}
