import type { Knex } from 'knex';

/**
 * Account disable (operators: the CLI's disable-user and the admin console): while `disabled_at`
 * is set the account cannot sign in and the API refuses its tokens and API keys.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.timestamp('disabled_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.dropColumn('disabled_at');
  });
}
