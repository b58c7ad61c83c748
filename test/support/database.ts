import { randomBytes } from 'node:crypto';
import { type Database, openDatabase } from '@sched/db/connection';
import { migrateLatest } from '@sched/db/migrate';
import type { TestFn } from 'ava';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { setUpForFile } from './read-through.ts';

export interface TestDatabase {
  db: Database;
  /** The URL of this test's own database (Postgres only); undefined on PGlite. */
  url: string | undefined;
  drop(): Promise<void>;
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export const TEST_CONNECT_TIMEOUT_MS = 15_000;

/**
 * A fresh, uniquely named Postgres database when DATABASE_URL is set, else an in-memory PGlite.
 * Migrated unless told otherwise. Call drop() in test.after.always.
 */
export async function createTestDatabase(
  options: { migrate?: boolean; backend?: 'postgres' | 'pglite' } = {},
): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  const backend = options.backend ?? (adminUrl ? 'postgres' : 'pglite');
  if (backend === 'pglite') {
    const db = await openDatabase({ pgliteDir: 'memory://' });
    if (options.migrate !== false) await migrateLatest(db.knex);
    return { db, url: undefined, drop: () => db.close() };
  }
  if (!adminUrl) throw new Error('DATABASE_URL is needed for a Postgres test database');
  const name = `sched_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  // Concurrent CREATE DATABASE can fail with 55006 (template1 busy being copied): retry that only.
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.raw('create database ??', [name]);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
  const url = withDatabaseName(adminUrl, name);
  // Dozens of test files create, migrate and use databases at once: opening a connection can
  // take seconds then, which is load, not an outage.
  const db = await openDatabase({ url, connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS });
  if (options.migrate !== false) await migrateLatest(db.knex);
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      await admin.raw('drop database if exists ?? with (force)', [name]);
      await admin.destroy();
    },
  };
}

/**
 * One test database for the whole file: made in `test.before`, dropped in `test.after.always`.
 * The hook is serial, so before hooks declared after this call find the database ready.
 * The returned object reads through to it (`database.db.knex` works in tests and later hooks).
 */
export function setUpTestDatabase<Context>(
  test: TestFn<Context>,
  options: Parameters<typeof createTestDatabase>[0] = {},
): TestDatabase {
  return setUpForFile(
    test,
    'the test database',
    () => createTestDatabase(options),
    (database) => database.drop(),
    { db: true, url: true, drop: true },
  );
}

/** Backends to run a contract suite against: PGlite always, Postgres when DATABASE_URL is set. */
export function databaseBackends(): Array<'postgres' | 'pglite'> {
  return process.env.DATABASE_URL ? ['postgres', 'pglite'] : ['pglite'];
}

/**
 * Interleaves deterministically with a write that takes row locks: `hold` changes rows in a
 * transaction of its own (holding their locks), then `run` starts; once another session of this
 * database waits for a lock (the write reached those rows), `hold`'s transaction commits, and the
 * write goes on with the rows as changed. Should `run` end without waiting, the transaction commits
 * after it (the write saw the rows as they were). Postgres only: PGlite has one connection, so
 * `run` could not start while the transaction is open.
 */
export async function whileLocked<T>(
  knex: Knex,
  hold: (trx: Knex.Transaction) => Promise<void>,
  run: () => Promise<T>,
): Promise<{ result: T; waited: boolean }> {
  const trx = await knex.transaction();
  try {
    await hold(trx);
  } catch (error) {
    await trx.rollback();
    throw error;
  }
  let ended = false;
  const running = run().finally(() => {
    ended = true;
  });
  running.catch(() => {});
  let waited = false;
  try {
    // Asked on a pool connection, outside `trx`: a transaction sees one snapshot of the activity.
    while (!ended && !waited) {
      const rows = (await knex.raw(
        "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
      )) as { rows: unknown[] };
      waited = rows.rows.length > 0;
      if (!waited) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await trx.commit();
  }
  return { result: await running, waited };
}
