import { DataError } from './errors.ts';

/**
 * Outages of the back ends (README "When Postgres or Redis is down"): a back end that is down is a
 * 503 answered within one second (no waiting on retries), logged once per outage, not once per
 * request.
 *
 * - The clients fail fast: Redis with its offline queue off (a command issued while disconnected
 *   is refused at once instead of waiting for a reconnect), Postgres with a short connect timeout
 *   and knex's default of passing a failed connection attempt straight to the query.
 * - `backendFailure(error)` recognises what such failures look like (ioredis, pg, knex) and turns
 *   them into one typed error, `BackendUnavailableError`, which each service renders as 503 with
 *   `Retry-After` (the API's envelope `ServiceUnavailable`, OAuth endpoints
 *   `temporarily_unavailable`, pages a 503 page).
 * - A `BackendMonitor` per connection follows the client's own connection events and logs one
 *   warning when the back end goes away and one when it is back; requests do not log them.
 */

export type Backend = 'database' | 'redis';

/** Seconds a client is told to wait (`Retry-After`) while a back end is down. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** The database or Redis cannot be reached right now; the request was not (or not fully) done. */
export class BackendUnavailableError extends DataError {
  readonly backend: Backend;
  readonly retryAfterSeconds: number;

  constructor(backend: Backend, reason: string) {
    super(`${backend} unavailable: ${reason}`);
    this.backend = backend;
    this.retryAfterSeconds = OUTAGE_RETRY_AFTER_SECONDS;
  }
}

/** Socket-level failures (the server is not there, or the connection broke). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * Postgres SQLSTATEs of an unusable connection or server: class 08 (connection exception), 57P01
 * admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up, shutting down).
 */
const PG_CODES = /^(08...|57P0[123])$/;

/** pg and knex failures that mean "no working connection", by message (they carry no code). */
const DATABASE_MESSAGES =
  /^(Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Knex: Timeout acquiring a connection|Knex: Connection Error)/i;

/**
 * ioredis failures of a client without a usable connection, and Redis's answers while a master is
 * being replaced (Cluster: the slot has no master yet or moved, a redirection the client gave up
 * following while the nodes' slot maps still disagree; Sentinel: the node we reached is a
 * replica now; either: a node still loading its data).
 */
const REDIS_MESSAGES =
  /^(Stream isn't writeable|Connection is closed|Reached the max retries per request limit|Too many Cluster redirections|MOVED |ASK |Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|CLUSTERDOWN |TRYAGAIN |READONLY |LOADING |MASTERDOWN )/;

function describe(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const message = (error.message.split('\n')[0] ?? '').trim() || error.name;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * The BackendUnavailableError an error stands for, or undefined when it is something else (a bad
 * query, a constraint, a bug). Recognises our own error (a failed database connection becomes one
 * where it happens: `connectionFailure`), ioredis's refusals while disconnected, pg's lost
 * connections, knex's pool timeouts and Postgres's connection SQLSTATEs; an AggregateError
 * (several addresses tried) counts when its first error does.
 */
export function backendFailure(error: unknown): BackendUnavailableError | undefined {
  if (error instanceof BackendUnavailableError) return error;
  if (!(error instanceof Error)) return undefined;
  if (error instanceof AggregateError && error.errors.length > 0) return backendFailure(error.errors[0]);
  const { code } = error as { code?: unknown };
  if (
    error.name === 'MaxRetriesPerRequestError' ||
    error.name === 'ClusterAllFailedError' ||
    REDIS_MESSAGES.test(error.message)
  ) {
    return new BackendUnavailableError('redis', describe(error));
  }
  if (error.name === 'KnexTimeoutError' || DATABASE_MESSAGES.test(error.message)) {
    return new BackendUnavailableError('database', describe(error));
  }
  if (typeof code === 'string' && PG_CODES.test(code)) {
    return new BackendUnavailableError('database', describe(error));
  }
  return undefined;
}

/**
 * A failure to get a database connection as a BackendUnavailableError when it is one: besides what
 * `backendFailure` knows, any socket error (refused, reset, unreachable), which only here is known
 * to be the database's (elsewhere ECONNRESET may be an SMTP server's).
 */
export function connectionFailure(error: unknown): unknown {
  const known = backendFailure(error);
  if (known) return known;
  const { code } = (error ?? {}) as { code?: unknown };
  if (error instanceof Error && typeof code === 'string' && SOCKET_CODES.has(code)) {
    return new BackendUnavailableError('database', describe(error));
  }
  return error;
}

export interface OutageLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Whether one back end is reachable, as its client last saw it, and the two log lines of an outage.
 * `down` and `up` are idempotent: only a change of state is logged.
 */
export class BackendMonitor {
  readonly backend: Backend;
  readonly target: string;
  /** Where the outage lines go; set by whoever has a logger (openStores, a test). */
  log: OutageLog | undefined;
  #downSince: number | undefined;

  constructor(backend: Backend, target: string, log?: OutageLog) {
    this.backend = backend;
    this.target = target;
    this.log = log;
  }

  get isDown(): boolean {
    return this.#downSince !== undefined;
  }

  down(reason: string): void {
    if (this.#downSince !== undefined) return;
    this.#downSince = Date.now();
    this.log?.warn(
      { backend: this.backend, target: this.target, reason },
      `${this.backend} unreachable: answering 503 until it is back`,
    );
  }

  up(): void {
    if (this.#downSince === undefined) return;
    const downForMs = Date.now() - this.#downSince;
    this.#downSince = undefined;
    this.log?.warn(
      { backend: this.backend, target: this.target, downForMs },
      `${this.backend} reachable again`,
    );
  }
}

const redisMonitors = new WeakMap<object, BackendMonitor>();

/** The monitor `openRedis` attached to a client. */
export const redisMonitor = (redis: object): BackendMonitor | undefined => redisMonitors.get(redis);

export function attachRedisMonitor(redis: object, monitor: BackendMonitor): void {
  redisMonitors.set(redis, monitor);
}

export { describe as describeBackendError };
