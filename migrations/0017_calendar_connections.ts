import type { Knex } from 'knex';

/**
 * Calendar connections (docs/calendars.md): a user's CalDAV / Google / Microsoft accounts with their
 * credentials encrypted (AES-256-GCM, never in clear), the calendars of each with the user's
 * choice (checked for conflicts, the one destination), the event each booking became, and the
 * durable queue of calendar writes (create / move / delete), retried like the mail outbox.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calendar_connections', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('provider').notNullable();
    table.text('account').notNullable();
    // AES-256-GCM sealed JSON of the credentials (shared/calendars/src/credentials-box.ts).
    table.text('credentials_sealed').notNullable();
    table.text('status').notNullable().defaultTo('active');
    table.timestamp('last_sync_error_at', { useTz: true });
    table.text('last_sync_error');
    // Bumped by every booking change of the user: busy-time cache entries of an older version are stale.
    table.bigInteger('busy_version').notNullable().defaultTo(0);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['user_id', 'provider', 'account']);
    table.check("provider in ('caldav', 'google', 'microsoft')", [], 'calendar_connections_provider_check');
    table.check("status in ('active', 'needs_reauth')", [], 'calendar_connections_status_check');
  });
  await knex.schema.createTable('connected_calendars', (table) => {
    table.bigIncrements('id');
    table
      .bigInteger('connection_id')
      .notNullable()
      .references('id')
      .inTable('calendar_connections')
      .onDelete('CASCADE');
    // Denormalised from the connection so "one destination per user" is a unique index.
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('external_id').notNullable();
    table.text('name').notNullable();
    table.boolean('read_only').notNullable().defaultTo(false);
    table.boolean('is_primary').notNullable().defaultTo(false);
    table.boolean('check_for_conflicts').notNullable().defaultTo(true);
    table.boolean('is_destination').notNullable().defaultTo(false);
    table.unique(['connection_id', 'external_id']);
  });
  await knex.raw(
    'create unique index connected_calendars_one_destination on connected_calendars (user_id) where is_destination',
  );
  await knex.schema.createTable('booking_calendar_events', (table) => {
    table.bigInteger('booking_id').primary().references('id').inTable('bookings').onDelete('CASCADE');
    table
      .bigInteger('calendar_id')
      .notNullable()
      .references('id')
      .inTable('connected_calendars')
      .onDelete('CASCADE');
    table.text('external_id').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('calendar_write_queue', (table) => {
    table.bigIncrements('id');
    table.bigInteger('booking_id').notNullable().references('id').inTable('bookings').onDelete('CASCADE');
    // move: the event of `from_booking_id` (the rescheduled booking) becomes `booking_id`'s.
    table.text('action').notNullable();
    table.bigInteger('from_booking_id').references('id').inTable('bookings').onDelete('CASCADE');
    table.integer('attempts').notNullable().defaultTo(0);
    table.text('last_error');
    table.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('done_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("action in ('create', 'move', 'delete')", [], 'calendar_write_queue_action_check');
  });
  await knex.raw(
    'create index calendar_write_queue_pending on calendar_write_queue (next_attempt_at) where done_at is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('calendar_write_queue');
  await knex.schema.dropTableIfExists('booking_calendar_events');
  await knex.schema.dropTableIfExists('connected_calendars');
  await knex.schema.dropTableIfExists('calendar_connections');
}
