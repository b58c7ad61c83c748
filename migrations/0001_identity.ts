import type { Knex } from 'knex';

/**
 * Identity: users, their API keys and e-mail verification tokens (docs/schema.md).
 *
 * `users.managed_by_client_id` and `users.default_schedule_id` are created here but get their
 * foreign keys in 0004_oauth_clients and 0005_scheduling, where the referenced tables appear.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    table.bigIncrements('id');
    table.text('email').notNullable();
    table.text('username');
    table.text('name');
    table.text('password_hash');
    table.timestamp('email_verified_at', { useTz: true });
    table.text('time_zone').notNullable().defaultTo('UTC');
    table.text('week_start').notNullable().defaultTo('Monday');
    table.text('locale').notNullable().defaultTo('en');
    table.smallint('time_format');
    table.text('bio');
    table.text('avatar_url');
    table.jsonb('metadata').notNullable().defaultTo(knex.raw("'{}'::jsonb"));
    table.boolean('is_service_admin').notNullable().defaultTo(false);
    table.text('onboarding_step').notNullable().defaultTo('profile');
    table.text('calendar_provider');
    table.text('managed_by_client_id');
    table.bigInteger('default_schedule_id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("email <> ''", [], 'users_email_not_empty');
    table.check("username is null or username <> ''", [], 'users_username_not_empty');
    table.check(
      "week_start in ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday')",
      [],
      'users_week_start_check',
    );
    table.check('time_format is null or time_format in (12, 24)', [], 'users_time_format_check');
    table.check("onboarding_step in ('profile', 'calendar', 'complete')", [], 'users_onboarding_step_check');
    table.check("jsonb_typeof(metadata) = 'object'", [], 'users_metadata_object');
  });
  // Case-insensitive uniqueness without citext (PGlite ships it, but only when loaded at start-up).
  // Regular users share one e-mail namespace; managed users (deprecated family) one per client.
  await knex.raw(
    'create unique index users_email_lower_unique on users (lower(email)) where managed_by_client_id is null',
  );
  await knex.raw(
    'create unique index users_managed_email_lower_unique on users (managed_by_client_id, lower(email)) ' +
      'where managed_by_client_id is not null',
  );
  await knex.raw('create unique index users_username_lower_unique on users (lower(username))');
  await knex.raw('create index users_service_admin on users (id) where is_service_admin');

  await knex.schema.createTable('api_keys', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('key_hash').notNullable().unique({ indexName: 'api_keys_key_hash_unique' });
    table.text('hint').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('last_used_at', { useTz: true });
    table.timestamp('revoked_at', { useTz: true });
    table.check("key_hash ~ '^[0-9a-f]{64}$'", [], 'api_keys_key_hash_sha256');
    table.index(['user_id'], 'api_keys_user_id');
  });

  await knex.schema.createTable('email_verification_tokens', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    /** The address being verified (a change of e-mail verifies the new one). */
    table.text('email').notNullable();
    table.text('token_hash').notNullable().unique({ indexName: 'email_verification_tokens_hash_unique' });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('consumed_at', { useTz: true });
    table.check("token_hash ~ '^[0-9a-f]{64}$'", [], 'email_verification_tokens_hash_sha256');
    table.index(['user_id'], 'email_verification_tokens_user_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_verification_tokens');
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('users');
}
