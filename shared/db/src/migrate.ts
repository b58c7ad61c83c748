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

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
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
