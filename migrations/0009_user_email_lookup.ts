import type { Knex } from 'knex';

/**
 * "Is this e-mail used by any account?" (a managed user cannot take an e-mail another account uses)
 * across regular and managed users alike. The unique indexes of 0001 are partial (regular users) or
 * lead with the client (managed users), so neither answers it without a scan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index users_email_lower on users (lower(email))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists users_email_lower');
}
