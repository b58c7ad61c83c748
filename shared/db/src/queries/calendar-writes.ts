import type { Knex } from 'knex';

/**
 * The calendar write queue (`calendar_write_queue`) and the events bookings became
 * (`booking_calendar_events`). A write is queued in the transaction of the booking change that
 * causes it and carried out by the calendar write worker (@sched/runtime/calendar-write-worker),
 * with retries and backoff like the mail outbox, so a calendar that fails never fails a booking.
 */

export type CalendarWriteAction = 'create' | 'move' | 'delete';

export interface CalendarWrite {
  id: number;
  bookingId: number;
  action: CalendarWriteAction;
  fromBookingId: number | null;
  attempts: number;
}

interface WriteRow {
  id: number | string;
  booking_id: number | string;
  action: string;
  from_booking_id: number | string | null;
  attempts: number;
}

const mapWrite = (row: WriteRow): CalendarWrite => ({
  id: Number(row.id),
  bookingId: Number(row.booking_id),
  action: row.action as CalendarWriteAction,
  fromBookingId: row.from_booking_id === null ? null : Number(row.from_booking_id),
  attempts: Number(row.attempts),
});

const seconds = (value: number) => Math.max(0, Math.floor(value));

/**
 * Queues a write for a booking of `hostUserId`, only when that host has a calendar connection
 * (nothing to write otherwise). Call it in the booking change's transaction.
 */
export async function enqueueCalendarWrite(
  knex: Knex,
  hostUserId: number,
  write: { bookingId: number; action: CalendarWriteAction; fromBookingId?: number | null },
): Promise<void> {
  await knex.raw(
    `insert into calendar_write_queue (booking_id, action, from_booking_id)
     select ?, ?, ? where exists (select 1 from calendar_connections where user_id = ?)`,
    [write.bookingId, write.action, write.fromBookingId ?? null, hostUserId],
  );
}

/**
 * Claims up to `limit` due writes, oldest first, pushing their next attempt `leaseSeconds` ahead
 * (rows another worker holds are skipped), so replicas never run one write twice at once.
 */
export async function claimDueCalendarWrites(
  knex: Knex,
  limit: number,
  leaseSeconds: number,
): Promise<CalendarWrite[]> {
  const result = (await knex.raw(
    `update calendar_write_queue set next_attempt_at = now() + make_interval(secs => ?)
     where id in (
       select id from calendar_write_queue
       where done_at is null and next_attempt_at <= now()
       order by id
       limit ?
       for update skip locked)
     returning id, booking_id, action, from_booking_id, attempts`,
    [Math.max(1, seconds(leaseSeconds)), Math.max(1, Math.floor(limit))],
  )) as { rows: WriteRow[] };
  return result.rows.map(mapWrite).sort((a, b) => a.id - b.id);
}

export async function markCalendarWriteDone(knex: Knex, id: number): Promise<void> {
  await knex('calendar_write_queue')
    .where({ id })
    .update({ done_at: knex.fn.now(), attempts: knex.raw('attempts + 1'), last_error: null });
}

/** A failed attempt, retried after `retryAfterSeconds`, or never again when null (out of attempts). */
export async function markCalendarWriteFailed(
  knex: Knex,
  id: number,
  error: string,
  retryAfterSeconds: number | null,
): Promise<void> {
  await knex('calendar_write_queue')
    .where({ id })
    .update({
      attempts: knex.raw('attempts + 1'),
      last_error: error.slice(0, 1000),
      next_attempt_at:
        retryAfterSeconds === null
          ? knex.raw("'infinity'::timestamptz")
          : knex.raw(`now() + make_interval(secs => ?)`, [seconds(retryAfterSeconds)]),
    });
}

/** Writes not yet done for a booking (a cancel makes a pending create pointless). */
export async function dropPendingCalendarWrites(
  knex: Knex,
  bookingId: number,
  exceptId: number,
): Promise<void> {
  await knex('calendar_write_queue')
    .where({ booking_id: bookingId })
    .whereNull('done_at')
    .whereNot({ id: exceptId })
    .update({ done_at: knex.fn.now(), last_error: 'superseded' });
}

/** Pending writes, oldest first (tests, operators). */
export async function countPendingCalendarWrites(knex: Knex): Promise<number> {
  const row = (await knex('calendar_write_queue').whereNull('done_at').count({ n: '*' }).first()) as {
    n: number | string;
  };
  return Number(row.n);
}

export interface BookingEvent {
  bookingId: number;
  calendarId: number;
  connectionId: number;
  calendarExternalId: string;
  externalId: string;
}

/** The event a booking became, with its calendar and connection, or null. */
export async function findBookingEvent(knex: Knex, bookingId: number): Promise<BookingEvent | null> {
  const row = (await knex('booking_calendar_events as e')
    .join('connected_calendars as c', 'c.id', 'e.calendar_id')
    .where('e.booking_id', bookingId)
    .first(
      'e.booking_id',
      'e.calendar_id',
      'c.connection_id',
      'c.external_id as calendar_external_id',
      'e.external_id',
    )) as
    | {
        booking_id: number | string;
        calendar_id: number | string;
        connection_id: number | string;
        calendar_external_id: string;
        external_id: string;
      }
    | undefined;
  return row
    ? {
        bookingId: Number(row.booking_id),
        calendarId: Number(row.calendar_id),
        connectionId: Number(row.connection_id),
        calendarExternalId: row.calendar_external_id,
        externalId: row.external_id,
      }
    : null;
}

export async function saveBookingEvent(
  knex: Knex,
  bookingId: number,
  calendarId: number,
  externalId: string,
): Promise<void> {
  await knex('booking_calendar_events')
    .insert({ booking_id: bookingId, calendar_id: calendarId, external_id: externalId })
    .onConflict('booking_id')
    .merge({ calendar_id: calendarId, external_id: externalId });
}

/** The rescheduled booking's event now belongs to the new booking. */
export async function moveBookingEvent(
  knex: Knex,
  fromBookingId: number,
  toBookingId: number,
): Promise<void> {
  await knex('booking_calendar_events')
    .where({ booking_id: fromBookingId })
    .update({ booking_id: toBookingId });
}

export async function deleteBookingEvent(knex: Knex, bookingId: number): Promise<void> {
  await knex('booking_calendar_events').where({ booking_id: bookingId }).delete();
}

/** The user's destination calendar (id, connection, external id), or null when none is chosen. */
export async function findDestinationCalendar(
  knex: Knex,
  userId: number,
): Promise<{ calendarId: number; connectionId: number; externalId: string } | null> {
  const row = (await knex('connected_calendars')
    .where({ user_id: userId, is_destination: true })
    .first('id', 'connection_id', 'external_id')) as
    | { id: number | string; connection_id: number | string; external_id: string }
    | undefined;
  return row
    ? { calendarId: Number(row.id), connectionId: Number(row.connection_id), externalId: row.external_id }
    : null;
}
