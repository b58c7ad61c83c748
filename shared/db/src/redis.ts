import { describeTarget, parseRedisUrl, type RedisTarget, RedisUrlError } from '@sched/kit/redis-url';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { attachRedisMonitor, BackendMonitor, type OutageLog } from './availability.ts';
import { coalesceWrites } from './redis-turn.ts';
import { SentinelClient } from './sentinel-client.ts';

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

/** One node or a Sentinel-managed master (both a `Redis`), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** Where a REDIS_URL points (`host:port/db`, the sentinels or the cluster's seeds), without credentials. */
export function describeRedisTarget(url: string): string {
  try {
    return describeTarget(parseRedisUrl(url));
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

/** The client options of every kind: fail fast during an outage, reconnect by itself. */
function clientOptions(connectTimeoutMs: number, connectionName: string | undefined): RedisOptions {
  return {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    // Commands issued while disconnected fail at once instead of waiting in a queue for the
    // reconnection (an outage is a 503 within a second, not a wait on retries).
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
    // Off: ioredis's auto-pipeline keeps commands and replies alive across young-generation
    // collections (4 MB promoted per scavenge under load, pauses 10x the bare handler's), and it
    // groups per socket callback only. Each turn's commands share one write instead
    // (redis-turn.ts), the resource API's hot read is batched by the token store (mget-batch.ts),
    // and every command goes out in the order it was issued.
    enableAutoPipelining: false,
    ...(connectionName ? { connectionName } : {}),
  };
}

/** The pause before a client that ended on its own connects again (the longest reconnect delay). */
const RESTART_DELAY_MS = 1000;

/** The unconnected client a parsed REDIS_URL asks for (ioredis speaks Sentinel and Cluster itself). */
function createClient(url: string, target: RedisTarget, options: RedisOptions): RedisClient {
  switch (target.kind) {
    case 'single':
      return new Redis(url, options);
    case 'sentinel':
      return new SentinelClient(
        {
          ...options,
          sentinels: target.sentinels,
          name: target.masterName,
          db: target.db,
          ...(target.username ? { username: target.username } : {}),
          ...(target.password ? { password: target.password } : {}),
          ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
          // After a failover the old master's connection is dropped and the new one asked for.
          failoverDetector: true,
          sentinelRetryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 1000),
          // A sentinel that does not answer (a hung host) is passed over for the next once a
          // connection would have timed out; ioredis would wait on it for ever, never reconnecting.
          sentinelCommandTimeout: options.connectTimeout,
        },
        RESTART_DELAY_MS,
      );
    case 'cluster': {
      const { lazyConnect, enableOfflineQueue, retryStrategy, ...nodeOptions } = options;
      const clusterOptions: ClusterOptions = {
        lazyConnect,
        enableOfflineQueue,
        // While a master is being replaced its slots answer MOVED / CLUSTERDOWN; a few quick
        // redirections ride over that, longer outages fail fast as on one node.
        maxRedirections: 4,
        retryDelayOnFailover: 100,
        retryDelayOnClusterDown: 100,
        clusterRetryStrategy: retryStrategy,
        scaleReads: 'master',
        redisOptions: {
          ...nodeOptions,
          ...(target.username ? { username: target.username } : {}),
          ...(target.password ? { password: target.password } : {}),
        },
      };
      return new Cluster(target.nodes, clusterOptions);
    }
  }
}

/**
 * Opens the client REDIS_URL names: one node (`redis://`), a Sentinel-managed master
 * (`redis+sentinel://`) or a Cluster (`redis+cluster://`). It fails fast with a
 * RedisUnavailableError when Redis cannot be reached at start. Afterwards the client reconnects by
 * itself (backoff up to 1 s) while commands issued during an outage are refused at once (no
 * offline queue; `backendFailure` in availability.ts recognises the refusal): callers see a 503
 * within milliseconds, not a wait on retries. The client's monitor (`redisMonitor(redis)`) logs
 * once when the connection is lost and once when it is ready again.
 */
export async function openRedisClient(url: string, options: OpenRedisOptions = {}): Promise<RedisClient> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const target = parseRedisUrl(url);
  const redis = createClient(url, target, clientOptions(connectTimeoutMs, options.connectionName));
  const described = describeTarget(target);
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
    throw new RedisUnavailableError(`cannot reach Redis at ${described}: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
  // One socket write per turn needs the one connection of a `Redis`; a Cluster has one per node.
  if (redis instanceof Redis) coalesceWrites(redis);
  const monitor = new BackendMonitor('redis', described, options.outageLog);
  attachRedisMonitor(redis, monitor);
  // 'reconnecting' follows only a connection lost unexpectedly (not quit() or disconnect()); a
  // Cluster says 'node error' for a node it lost and 'ready' once its slots are served again.
  redis.on('reconnecting', () => monitor.down(lastError ? describeRedisError(lastError) : 'connection lost'));
  redis.on('ready', () => {
    lastError = undefined;
    monitor.up();
  });
  return redis;
}

/**
 * `openRedisClient` for the callers that need one connection's client (`Redis`): a single node or
 * a Sentinel-managed master. A cluster URL is refused.
 */
export async function openRedis(url: string, options: OpenRedisOptions = {}): Promise<Redis> {
  if (parseRedisUrl(url).kind === 'cluster') {
    throw new RedisUrlError('a redis+cluster:// URL needs openRedisClient (a Cluster client)');
  }
  return (await openRedisClient(url, options)) as Redis;
}
