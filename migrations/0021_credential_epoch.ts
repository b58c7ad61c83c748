import type { Knex } from 'knex';

/**
 * `users.credential_epoch`: moved on with every write of the password. A browser session keeps the
 * value read together with the password it was signed in with, and counts only while it is still
 * the account's: a sign-in that checked the old password cannot outlive a reset or change, whatever
 * order its session is saved in.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.integer('credential_epoch').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.dropColumn('credential_epoch');
  });
}
