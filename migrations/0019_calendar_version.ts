import type { Knex } from 'knex';

/**
 * `users.calendar_version`: moves on with every write to the user's calendar connections and
 * calendars (connect, choices, status, disconnect, and the busy version our bookings bump). Slots
 * read it with the host's profile and keep the host's connections in memory under it, so a cached
 * slots request needs no query of its own for calendars. A trigger rather than the data layer's
 * functions: no write path can forget to bump it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.bigInteger('calendar_version').notNullable().defaultTo(0);
  });
  await knex.raw(`
    create function users_bump_calendar_version() returns trigger language plpgsql as $$
    begin
      update users set calendar_version = calendar_version + 1
        where id = (case when tg_op = 'DELETE' then old.user_id else new.user_id end);
      if tg_op = 'UPDATE' and old.user_id <> new.user_id then
        update users set calendar_version = calendar_version + 1 where id = old.user_id;
      end if;
      return null;
    end $$`);
  for (const table of ['calendar_connections', 'connected_calendars']) {
    await knex.raw(`
      create trigger ${table}_calendar_version after insert or update or delete on ${table}
      for each row execute function users_bump_calendar_version()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['calendar_connections', 'connected_calendars']) {
    await knex.raw(`drop trigger ${table}_calendar_version on ${table}`);
  }
  await knex.raw('drop function users_bump_calendar_version()');
  await knex.schema.alterTable('users', (table) => {
    table.dropColumn('calendar_version');
  });
}
