import type { Knex } from 'knex';

/**
 * Schedules and their weekly availability, user booking limits, event types and their hosts,
 * bookings (docs/schema.md). Also ties users.default_schedule_id (created in 0001) to the user's
 * own schedule.
 */

const LIMIT_CHECK = (column: string) => `${column} is null or ${column} >= 1`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedules', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('name').notNullable();
    table.text('time_zone').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Target of users' composite foreign key (a default schedule must be the user's own); its
    // leading column also serves "schedules of a user".
    table.unique(['user_id', 'id'], { indexName: 'schedules_user_id_id_unique' });
  });

  // One row per weekday and interval; weekday is ISO (1 = Monday ... 7 = Sunday). Times are wall
  // clock in the schedule's time zone; end_time may be 24:00.
  await knex.schema.createTable('schedule_availability', (table) => {
    table.bigIncrements('id');
    table.bigInteger('schedule_id').notNullable().references('id').inTable('schedules').onDelete('CASCADE');
    table.smallint('weekday').notNullable();
    table.time('start_time').notNullable();
    table.time('end_time').notNullable();
    table.check('weekday between 1 and 7', [], 'schedule_availability_weekday_check');
    table.check('start_time < end_time', [], 'schedule_availability_interval_check');
    table.index(['schedule_id', 'weekday'], 'schedule_availability_schedule_weekday');
  });

  await knex.raw(
    'alter table users add constraint users_default_schedule_fk foreign key (id, default_schedule_id) ' +
      'references schedules (user_id, id) on delete set null (default_schedule_id)',
  );

  await knex.schema.createTable('booking_limits', (table) => {
    table.bigInteger('user_id').primary().references('id').inTable('users').onDelete('CASCADE');
    table.integer('per_day');
    table.integer('per_week');
    table.integer('per_month');
    table.integer('per_year');
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    for (const column of ['per_day', 'per_week', 'per_month', 'per_year']) {
      table.check(LIMIT_CHECK(column), [], `booking_limits_${column}_check`);
    }
  });

  await knex.schema.createTable('event_types', (table) => {
    table.bigIncrements('id');
    table.bigInteger('owner_user_id').references('id').inTable('users').onDelete('CASCADE');
    table.bigInteger('team_id').references('id').inTable('teams').onDelete('CASCADE');
    table.text('title').notNullable();
    table.text('slug').notNullable();
    table.integer('length_minutes').notNullable();
    table.integer('limit_per_day');
    table.integer('limit_per_week');
    table.integer('limit_per_month');
    table.integer('limit_per_year');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check('num_nonnulls(owner_user_id, team_id) = 1', [], 'event_types_owner_xor_team');
    table.check("title <> ''", [], 'event_types_title_not_empty');
    table.check("slug <> ''", [], 'event_types_slug_not_empty');
    table.check('length_minutes between 1 and 1440', [], 'event_types_length_check');
    for (const column of ['limit_per_day', 'limit_per_week', 'limit_per_month', 'limit_per_year']) {
      table.check(LIMIT_CHECK(column), [], `event_types_${column}_check`);
    }
  });
  await knex.raw(
    'create unique index event_types_owner_slug_unique on event_types (owner_user_id, lower(slug)) ' +
      'where owner_user_id is not null',
  );
  await knex.raw(
    'create unique index event_types_team_slug_unique on event_types (team_id, lower(slug)) where team_id is not null',
  );

  await knex.schema.createTable('event_type_hosts', (table) => {
    table
      .bigInteger('event_type_id')
      .notNullable()
      .references('id')
      .inTable('event_types')
      .onDelete('CASCADE');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.primary(['event_type_id', 'user_id'], { constraintName: 'event_type_hosts_pkey' });
    table.index(['user_id'], 'event_type_hosts_user_id');
  });

  await knex.schema.createTable('bookings', (table) => {
    table.bigIncrements('id');
    table.text('uid').notNullable().unique({ indexName: 'bookings_uid_unique' });
    table.bigInteger('event_type_id').references('id').inTable('event_types').onDelete('SET NULL');
    table.bigInteger('host_user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.timestamp('start_at', { useTz: true }).notNullable();
    table.timestamp('end_at', { useTz: true }).notNullable();
    table.text('status').notNullable().defaultTo('accepted');
    table.text('attendee_name').notNullable();
    table.text('attendee_email').notNullable();
    table.text('attendee_time_zone').notNullable();
    table.text('cancellation_reason');
    table.text('rescheduled_from_uid').references('uid').inTable('bookings').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("status in ('accepted', 'cancelled', 'rejected')", [], 'bookings_status_check');
    table.check('start_at < end_at', [], 'bookings_interval_check');
  });
  // Hot path: booking limits and busy times count a host's accepted bookings in a period.
  await knex.raw(
    "create index bookings_host_accepted_start on bookings (host_user_id, start_at) where status = 'accepted'",
  );
  // GET /v2/bookings (all of a host's bookings) and the cascade from users.
  await knex.raw('create index bookings_host_start on bookings (host_user_id, start_at)');
  await knex.raw('create index bookings_event_type_start on bookings (event_type_id, start_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('bookings');
  await knex.schema.dropTableIfExists('event_type_hosts');
  await knex.schema.dropTableIfExists('event_types');
  await knex.schema.dropTableIfExists('booking_limits');
  await knex.raw('alter table users drop constraint if exists users_default_schedule_fk');
  await knex.schema.dropTableIfExists('schedule_availability');
  await knex.schema.dropTableIfExists('schedules');
}
