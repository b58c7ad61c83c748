import type { Knex } from 'knex';

/**
 * Password-reset links ("Forgot password?"): like `email_verification_tokens`, only the SHA-256 of
 * the link's token is stored; a link works once, for 30 minutes, and a new link of the user deletes
 * the older ones.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('password_reset_tokens', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('token_hash').notNullable().unique({ indexName: 'password_reset_tokens_hash_unique' });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('consumed_at', { useTz: true });
    table.check("token_hash ~ '^[0-9a-f]{64}$'", [], 'password_reset_tokens_hash_sha256');
    table.index(['user_id'], 'password_reset_tokens_user_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('password_reset_tokens');
}
