import type { Knex } from 'knex';

/**
 * A CalDAV account is a user name on a server: the same name on two servers (one e-mail address
 * at iCloud and at Fastmail) is two accounts. `server` (the origin of the CalDAV server URL; empty
 * for Google and Microsoft, whose account is an address) joins the connection's identity, so
 * connecting the second no longer takes over the first and deletes its calendars.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calendar_connections', (table) => {
    table.text('server').notNullable().defaultTo('');
  });
  await knex.schema.alterTable('calendar_connections', (table) => {
    table.dropUnique(['user_id', 'provider', 'account']);
    table.unique(['user_id', 'provider', 'account', 'server']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calendar_connections', (table) => {
    table.dropUnique(['user_id', 'provider', 'account', 'server']);
  });
  await knex('calendar_connections')
    .whereIn(
      'id',
      knex('calendar_connections as later')
        .join('calendar_connections as first', function sameAccount() {
          this.on('first.user_id', 'later.user_id')
            .andOn('first.provider', 'later.provider')
            .andOn('first.account', 'later.account')
            .andOn('first.id', '<', 'later.id');
        })
        .select('later.id'),
    )
    .delete();
  await knex.schema.alterTable('calendar_connections', (table) => {
    table.dropColumn('server');
    table.unique(['user_id', 'provider', 'account']);
  });
}
