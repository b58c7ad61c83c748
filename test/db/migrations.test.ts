import type { Knex } from '@sched/db/connection';
import { migrateLatest, migrateRollbackAll, pendingMigrations } from '@sched/db/migrate';
import { migrations } from '@sched/migrations';
import test from 'ava';
import { createTestDatabase, databaseBackends } from '../support/database.ts';

// Every migration's `down` drops exactly what its `up` made: up -> down (all) -> up works, and
// going down one step at a time restores the schema as it was before that step.

const EXPECTED_TABLES = [
  'api_keys',
  'audit_log',
  'booking_calendar_events',
  'booking_limits',
  'bookings',
  'calendar_connections',
  'calendar_write_queue',
  'connected_calendars',
  'email_verification_tokens',
  'event_type_hosts',
  'event_types',
  'mail_outbox',
  'memberships',
  'oauth_client_secrets',
  'oauth_clients',
  'oauth_consents',
  'organizations',
  'password_reset_tokens',
  'resource_servers',
  'role_permissions',
  'roles',
  'schedule_availability',
  'schedules',
  'signing_keys',
  'teams',
  'token_counters',
  'token_records',
  'users',
];

const config: Knex.MigratorConfig = {
  tableName: 'knex_migrations',
  migrationSource: {
    getMigrations: async () => migrations.map(([name]) => name),
    getMigrationName: (name: string) => name,
    getMigration: async (name: string) => migrations.find(([candidate]) => candidate === name)![1],
  } satisfies Knex.MigrationSource<string>,
};

const rowsOf = <R>(result: { rows: R[] }): R[] => result.rows;

/** Everything in the public schema except knex's own bookkeeping, as sorted lines. */
async function snapshot(knex: Knex): Promise<string[]> {
  const ignore = [
    'knex_migrations',
    'knex_migrations_lock',
    'knex_migrations_id_seq',
    'knex_migrations_lock_index_seq',
  ];
  const objects = rowsOf<{ line: string }>(
    await knex.raw(
      `select c.relkind::text || ' ' || c.relname as line
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relname <> all(?::text[])
          and not exists (select 1 from pg_index i join pg_class t on t.oid = i.indrelid
                           where i.indexrelid = c.oid and t.relname like 'knex_migrations%')`,
      [ignore],
    ),
  );
  const columns = rowsOf<{ line: string }>(
    await knex.raw(
      `select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable ||
              ' ' || coalesce(column_default, '') as line
         from information_schema.columns
        where table_schema = 'public' and table_name not like 'knex_migrations%'`,
    ),
  );
  const constraints = rowsOf<{ line: string }>(
    await knex.raw(
      `select t.relname || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid) as line
         from pg_constraint con join pg_class t on t.oid = con.conrelid
         join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' and t.relname not like 'knex_migrations%'`,
    ),
  );
  const indexes = rowsOf<{ line: string }>(
    await knex.raw(
      `select indexdef as line from pg_indexes
        where schemaname = 'public' and tablename not like 'knex_migrations%'`,
    ),
  );
  return [...objects, ...columns, ...constraints, ...indexes].map((row) => row.line).sort();
}

async function publicTables(knex: Knex): Promise<string[]> {
  const rows = rowsOf<{ table_name: string }>(
    await knex.raw(
      `select table_name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'knex_migrations%'
        order by table_name`,
    ),
  );
  return rows.map((row) => row.table_name);
}

for (const backend of databaseBackends()) {
  test.serial(`${backend}: up, down (all), up again`, async (t) => {
    const { db, drop } = await createTestDatabase({ migrate: false, backend });
    t.teardown(drop);
    const { knex } = db;
    const names = migrations.map(([name]) => name);

    t.deepEqual(await migrateLatest(knex), names);
    t.deepEqual(await publicTables(knex), EXPECTED_TABLES);
    t.deepEqual(await pendingMigrations(knex), []);
    t.deepEqual(await migrateLatest(knex), [], 'a second run applies nothing');
    const migrated = await snapshot(knex);
    t.true(
      migrated.some((line) => line.includes('bookings_host_accepted_start')),
      'snapshot sees partial indexes',
    );

    t.deepEqual(await migrateRollbackAll(knex), [...names].reverse());
    t.deepEqual(await snapshot(knex), [], 'down leaves nothing behind');

    t.deepEqual(await migrateLatest(knex), names);
    t.deepEqual(await snapshot(knex), migrated, 'up again builds the same schema');

    // One step at a time: each down restores the schema as it was before that step's up.
    await migrateRollbackAll(knex);
    const before: string[][] = [];
    for (const name of names) {
      before.push(await snapshot(knex));
      await knex.migrate.up({ ...config, name });
    }
    for (const name of [...names].reverse()) {
      await knex.migrate.down({ ...config, name });
      t.deepEqual(await snapshot(knex), before.pop(), `down of ${name} reverts its up`);
    }
  });
}
