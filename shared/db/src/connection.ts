import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { BackendMonitor, backendFailure, connectionFailure, describeBackendError } from './availability.ts';
import { seedFromTemplate } from './pglite-template.ts';

export type { Knex };

export interface Database {
  knex: Knex;
  kind: 'postgres' | 'pglite';
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  /** Postgres only: whether the server is reachable, as the pool last saw it (outages log here). */
  availability?: BackendMonitor;
  close(): Promise<void>;
}

/** The database is unreachable or refused us; the message is one line fit for an operator. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

export interface OpenDatabaseOptions {
  /** postgres://... ; when absent the embedded PGlite is used. */
  url?: string | undefined;
  /** PGlite data folder; ignored for Postgres. `memory://` keeps it in memory (tests). */
  pgliteDir?: string | undefined;
  poolMax?: number;
  /**
   * How long opening a Postgres connection may take (default CONNECT_TIMEOUT_MS). Tests, which
   * open dozens of databases at once on a loaded machine, give more.
   */
  connectTimeoutMs?: number;
  /** Where knex's own messages go; by default they are dropped (errors reach callers anyway). */
  log?: { warn(message: string): void; debug(message: string): void };
}

/**
 * How long opening a connection may take. A server that is down refuses connections at once, so
 * this only bounds an address that does not answer at all (blackholed). It cannot be much shorter:
 * on a loaded machine opening a Postgres connection (a forked backend) took over 800 ms here, and
 * a timeout that short turned load into spurious 503s.
 */
const CONNECT_TIMEOUT_MS = 2500;

function knexLog(log: OpenDatabaseOptions['log']) {
  const text = (message: unknown) => (message instanceof Error ? message.message : String(message));
  // knex reports pool and connection errors itself (as warnings, with stacks) before rejecting
  // the query; the rejection is what we act on, so its copies go to debug.
  return {
    warn: (message: unknown) => log?.debug(text(message)),
    error: (message: unknown) => log?.debug(text(message)),
    deprecate: (message: unknown) => log?.warn(text(message)),
    debug: (message: unknown) => log?.debug(text(message)),
  };
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.url
    ? openPostgres(
        options.url,
        options.poolMax ?? 10,
        options.log,
        options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      )
    : openPglite(options.pgliteDir ?? 'memory://', options.log);
}

async function openPostgres(
  url: string,
  poolMax: number,
  log: OpenDatabaseOptions['log'],
  connectTimeoutMs: number,
): Promise<Database> {
  // node-postgres is imported here, not at start: the embedded default never loads it.
  const { default: pg } = await import('pg');
  // Postgres BIGINT (count(*), bigserial ids) arrives as a string by default; our ids stay far
  // below 2^53, so numbers are the honest JS type for them.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      application_name: 'sched-oauth',
    },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
    log: knexLog(log),
  });
  const availability = watchPool(knex, new BackendMonitor('database', describeTarget(url)));
  const database: Database = {
    knex,
    kind: 'postgres',
    availability,
    ping: async () => {
      await knex.raw('select 1');
    },
    close: () => knex.destroy(),
  };
  try {
    await database.ping();
  } catch (error) {
    await knex.destroy();
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new DatabaseUnavailableError(`cannot reach the database at ${describeTarget(url)}: ${reason}`);
  }
  return database;
}

/**
 * Follows the pool: a connection attempt that fails for want of a server (refused, timed out) or
 * a query that loses its connection marks the database down; the next connection made marks it up.
 * Each change is logged once by the monitor; the failed requests themselves answer 503.
 */
function watchPool(knex: Knex, monitor: BackendMonitor): BackendMonitor {
  // A connection that cannot be made is the database's outage, whatever the socket error says.
  const client = knex.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () =>
    acquire().catch((error: unknown) => {
      throw connectionFailure(error);
    });
  const pool = (knex.client as { pool?: { on(event: string, listener: (...args: unknown[]) => void): void } })
    .pool;
  pool?.on('createFail', (_eventId: unknown, error: unknown) => {
    if (connectionFailure(error) !== error || backendFailure(error))
      monitor.down(describeBackendError(error as Error));
  });
  pool?.on('createSuccess', () => monitor.up());
  knex.on('query-error', (error: unknown) => {
    if (backendFailure(error)) monitor.down(describeBackendError(error as Error));
  });
  return monitor;
}

async function openPglite(dir: string, log: OpenDatabaseOptions['log']): Promise<Database> {
  if (!dir.startsWith('memory://')) {
    // A first start copies the build's ready-made database instead of running initdb (8 s and more).
    if (await seedFromTemplate(dir))
      log?.debug(`embedded database created from the build's template in ${dir}`);
    await mkdir(dir, { recursive: true });
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dir);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new DatabaseUnavailableError(`cannot open the embedded database in ${dir}: ${reason}`);
  }
  const knex = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    log: knexLog(log),
  } as Knex.Config);
  return {
    knex,
    kind: 'pglite',
    ping: async () => {
      await knex.raw('select 1');
    },
    close: async () => {
      await knex.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
