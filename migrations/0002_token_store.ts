import type { Knex } from 'knex';

/**
 * The SQL token store (shared/db/src/token-store/sql.ts; layout in docs/token-store.md): what
 * oidc-provider persists, plus rate-limit counters and cache-invalidation versions. Used when
 * REDIS_URL is unset, so the embedded default keeps everything durably in the database.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('token_records', (table) => {
    table.text('model').notNullable();
    table.text('id').notNullable();
    table.jsonb('payload').notNullable();
    table.text('grant_id');
    table.text('uid');
    table.text('user_code');
    table.timestamp('consumed_at', { useTz: true });
    table.timestamp('expires_at', { useTz: true });
    table.primary(['model', 'id']);
  });
  await knex.raw(
    'create index token_records_grant_id on token_records (grant_id) where grant_id is not null',
  );
  await knex.raw('create index token_records_uid on token_records (model, uid) where uid is not null');
  await knex.raw(
    'create index token_records_user_code on token_records (model, user_code) where user_code is not null',
  );
  await knex.raw(
    'create index token_records_expires_at on token_records (expires_at) where expires_at is not null',
  );

  // 'rate:<key>' rows: hits of a fixed window ending at expires_at. 'ver:<key>' rows: versions, no expiry.
  await knex.schema.createTable('token_counters', (table) => {
    table.text('key').primary();
    table.bigInteger('value').notNullable();
    table.timestamp('expires_at', { useTz: true });
  });
  await knex.raw(
    'create index token_counters_expires_at on token_counters (expires_at) where expires_at is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('token_counters');
  await knex.schema.dropTableIfExists('token_records');
}
