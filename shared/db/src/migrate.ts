import { migrations } from '@sched/migrations';
import type { Knex } from 'knex';

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = migrations.find(([candidate]) => candidate === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found[1];
  },
};

const config = { migrationSource, tableName: 'knex_migrations' };

/**
 * The migrations of this code the database has not recorded as applied, by one query and without
 * writing anything. knex's own check creates and locks its tables first, several round trips that
 * cost about a second at each embedded start. Migrations the database has beyond this code's (a
 * newer version migrated it) are no concern of this code.
 */
export async function missingMigrations(knex: Knex): Promise<string[]> {
  let rows: Array<{ name: string }>;
  try {
    rows = (await knex(config.tableName).select('name')) as Array<{ name: string }>;
  } catch (error) {
    // No migrations table yet: a new database. Anything else (unreachable) is the caller's.
    if ((error as { code?: string }).code === '42P01') return migrations.map(([name]) => name);
    throw error;
  }
  const done = new Set(rows.map((row) => row.name));
  return migrations.map(([name]) => name).filter((name) => !done.has(name));
}

async function upToDate(knex: Knex): Promise<boolean> {
  try {
    return (await missingMigrations(knex)).length === 0;
  } catch {
    return false; // let knex's migrator report what is wrong
  }
}

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  if (await upToDate(knex)) return [];
  const [, applied] = (await knex.migrate.latest(config)) as [number, string[]];
  return applied;
}

/** Rolls every applied migration back (tests of `down`). */
export async function migrateRollbackAll(knex: Knex): Promise<string[]> {
  const [, reverted] = (await knex.migrate.rollback(config, true)) as [number, string[]];
  return reverted;
}

export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(config)) as [unknown[], Array<{ file: string } | string>];
  return pending.map((entry) => (typeof entry === 'string' ? entry : entry.file));
}
