import { randomToken } from '@sched/kit/secrets';
import type { Knex } from 'knex';

export type BookingStatus = 'accepted' | 'cancelled' | 'rejected';

export interface Booking {
  id: number;
  uid: string;
  eventTypeId: number | null;
  /** Null once the host deleted their account (the booking was cancelled then). */
  hostUserId: number | null;
  start: Date;
  end: Date;
  status: BookingStatus;
  attendee: { name: string; email: string; timeZone: string };
  cancellationReason: string | null;
  rescheduledFromUid: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface BookingRow {
  id: number | string;
  uid: string;
  event_type_id: number | string | null;
  host_user_id: number | string | null;
  start_at: Date | string;
  end_at: Date | string;
  status: string;
  attendee_name: string;
  attendee_email: string;
  attendee_time_zone: string;
  cancellation_reason: string | null;
  rescheduled_from_uid: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'uid',
  'event_type_id',
  'host_user_id',
  'start_at',
  'end_at',
  'status',
  'attendee_name',
  'attendee_email',
  'attendee_time_zone',
  'cancellation_reason',
  'rescheduled_from_uid',
  'created_at',
  'updated_at',
] as const;

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

export function mapBooking(row: BookingRow): Booking {
  return {
    id: Number(row.id),
    uid: row.uid,
    eventTypeId: row.event_type_id === null ? null : Number(row.event_type_id),
    hostUserId: row.host_user_id === null ? null : Number(row.host_user_id),
    start: toDate(row.start_at),
    end: toDate(row.end_at),
    status: row.status as BookingStatus,
    attendee: { name: row.attendee_name, email: row.attendee_email, timeZone: row.attendee_time_zone },
    cancellationReason: row.cancellation_reason,
    rescheduledFromUid: row.rescheduled_from_uid,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

// Advisory-lock namespaces (the two-key form pg_advisory_xact_lock(int, int)); arbitrary constants
// that no other part of the system uses.
const LOCK_EVENT_TYPE = 0x5c4e_0001;
const LOCK_HOST = 0x5c4e_0002;
const lockKey = (id: number): number => id % 2_147_483_647;

/**
 * Serialises booking writes inside `trx` (a transaction): first the event type (only when given:
 * its own limits count bookings across hosts), then each host in ascending key order. Every
 * booking transaction takes its locks in this one order, so two of them cannot deadlock. The locks
 * are released at commit or rollback. Works the same on Postgres and PGlite.
 */
export async function lockBookingScope(
  trx: Knex.Transaction,
  scope: { eventTypeId?: number | null; hostIds: readonly number[] },
): Promise<void> {
  if (scope.eventTypeId != null) {
    await trx.raw('select pg_advisory_xact_lock(?::int, ?::int)', [
      LOCK_EVENT_TYPE,
      lockKey(scope.eventTypeId),
    ]);
  }
  const keys = [...new Set(scope.hostIds.map(lockKey))].sort((a, b) => a - b);
  if (keys.length === 1) {
    await trx.raw('select pg_advisory_xact_lock(?::int, ?::int)', [LOCK_HOST, keys[0]!]);
  } else if (keys.length > 1) {
    // One round trip for a team: the function scan feeds the aggregate in array order (ascending).
    await trx.raw('select count(pg_advisory_xact_lock(?::int, k)) from unnest(?::int[]) as k', [
      LOCK_HOST,
      keys,
    ]);
  }
}

/** One range to count: accepted bookings of `hostId` starting in [start, end), optionally of one event type. */
export interface HostCountProbe {
  hostId: number;
  start: Date;
  end: Date;
  eventTypeId?: number | null;
}

const iso = (date: Date): string => date.toISOString();

/**
 * Counts, per probe, the host's accepted bookings that start in [start, end) (and are of the event
 * type when given). One statement; each probe is an index range scan on
 * bookings_host_accepted_start (host_user_id, start_at) where status = 'accepted' (index-only when
 * there is no event-type filter), so the cost depends on the bookings inside the ranges, not on
 * the host's history. The literal `status = 'accepted'` is what lets the planner use the partial index.
 */
export async function countHostBookings(knex: Knex, probes: readonly HostCountProbe[]): Promise<number[]> {
  if (probes.length === 0) return [];
  const result = await knex.raw(
    `select p.i, case when p.et is null then (
       select count(*) from bookings b
        where b.host_user_id = p.h and b.status = 'accepted'
          and b.start_at >= p.s and b.start_at < p.e
     ) else (
       select count(*) from bookings b
        where b.host_user_id = p.h and b.status = 'accepted'
          and b.start_at >= p.s and b.start_at < p.e and b.event_type_id = p.et
     ) end::int as n
     from unnest(?::bigint[], ?::timestamptz[], ?::timestamptz[], ?::bigint[]) with ordinality as p(h, s, e, et, i)
     order by p.i`,
    [
      probes.map((p) => p.hostId),
      probes.map((p) => iso(p.start)),
      probes.map((p) => iso(p.end)),
      // null elements become SQL NULLs (no event-type filter for that probe)
      probes.map((p) => p.eventTypeId ?? null) as unknown as number[],
    ],
  );
  return (result.rows as Array<{ n: number | string }>).map((row) => Number(row.n));
}

/**
 * Counts the event type's accepted bookings (any host) starting in each [start, end). Index range
 * scans on bookings_event_type_start (event_type_id, start_at).
 */
export async function countEventTypeBookings(
  knex: Knex,
  eventTypeId: number,
  ranges: ReadonlyArray<{ start: Date; end: Date }>,
): Promise<number[]> {
  if (ranges.length === 0) return [];
  const result = await knex.raw(
    `select p.i, (
       select count(*) from bookings b
        where b.event_type_id = ? and b.status = 'accepted'
          and b.start_at >= p.s and b.start_at < p.e
     )::int as n
     from unnest(?::timestamptz[], ?::timestamptz[]) with ordinality as p(s, e, i)
     order by p.i`,
    [eventTypeId, ranges.map((r) => iso(r.start)), ranges.map((r) => iso(r.end))],
  );
  return (result.rows as Array<{ n: number | string }>).map((row) => Number(row.n));
}

/** Longest booking (event types are 1 to 1440 minutes): bounds the overlap scans below. */
const MAX_LENGTH_MS = 1440 * 60_000;

/**
 * Accepted bookings of these hosts that overlap [from, to): the busy intervals for slots and
 * conflicts. Bounded index range scan: start_at in [from - 24 h, to).
 */
export async function listBusy(
  knex: Knex,
  hostIds: readonly number[],
  from: Date,
  to: Date,
): Promise<Array<{ hostId: number; start: number; end: number }>> {
  if (hostIds.length === 0) return [];
  const rows = (await knex('bookings')
    .whereIn('host_user_id', [...hostIds])
    .where('status', 'accepted')
    .where('start_at', '>=', new Date(from.getTime() - MAX_LENGTH_MS))
    .where('start_at', '<', to)
    .where('end_at', '>', from)
    .select('host_user_id', 'start_at', 'end_at')) as Array<{
    host_user_id: number | string;
    start_at: Date | string;
    end_at: Date | string;
  }>;
  return rows.map((row) => ({
    hostId: Number(row.host_user_id),
    start: toDate(row.start_at).getTime(),
    end: toDate(row.end_at).getTime(),
  }));
}

export interface NewBooking {
  eventTypeId: number;
  hostUserId: number;
  start: Date;
  end: Date;
  attendee: { name: string; email: string; timeZone: string };
  rescheduledFromUid?: string | null;
}

export async function insertBooking(knex: Knex, input: NewBooking): Promise<Booking> {
  const [row] = (await knex('bookings')
    .insert({
      uid: randomToken(16),
      event_type_id: input.eventTypeId,
      host_user_id: input.hostUserId,
      start_at: input.start,
      end_at: input.end,
      status: 'accepted',
      attendee_name: input.attendee.name,
      attendee_email: input.attendee.email,
      attendee_time_zone: input.attendee.timeZone,
      rescheduled_from_uid: input.rescheduledFromUid ?? null,
    })
    .returning(COLUMNS)) as BookingRow[];
  return mapBooking(row!);
}

/** The booking with this id, or null. */
export async function findBookingById(knex: Knex, id: number): Promise<Booking | null> {
  const row = (await knex('bookings').where({ id }).first(COLUMNS)) as BookingRow | undefined;
  return row ? mapBooking(row) : null;
}

/** The booking with this uid; with `lock` (inside a transaction) its row is locked FOR UPDATE. */
export async function findBookingByUid(
  knex: Knex,
  uid: string,
  options: { lock?: boolean } = {},
): Promise<Booking | null> {
  const query = knex('bookings').where({ uid }).first(COLUMNS);
  const row = (await (options.lock ? query.forUpdate() : query)) as BookingRow | undefined;
  return row ? mapBooking(row) : null;
}

/** Marks an accepted booking cancelled; false when it was not accepted (nothing changed). */
export async function cancelBookingRow(
  knex: Knex,
  id: number,
  reason: string | null,
): Promise<Booking | null> {
  const [row] = (await knex('bookings')
    .where({ id, status: 'accepted' })
    .update({ status: 'cancelled', cancellation_reason: reason, updated_at: knex.fn.now() })
    .returning(COLUMNS)) as BookingRow[];
  return row ? mapBooking(row) : null;
}

/** The reason written on the bookings cancelled because their host's account went. */
export const HOST_DELETED_REASON = 'The host deleted their account';

/**
 * Before users rows are deleted (account deletion, a managed user or its client deleted): their
 * accepted bookings become cancelled with HOST_DELETED_REASON. The rows stay; the foreign key then
 * sets their host to null (migration 0012), so a booking without host is always cancelled.
 * `hostIds` is a list of user ids or a subquery selecting them. Returns how many were cancelled.
 */
export async function cancelBookingsOfDeletedHosts(
  knex: Knex,
  hostIds: readonly number[] | Knex.QueryBuilder,
): Promise<number> {
  return knex('bookings')
    .whereIn('host_user_id', hostIds as readonly number[])
    .where({ status: 'accepted' })
    .update({ status: 'cancelled', cancellation_reason: HOST_DELETED_REASON, updated_at: knex.fn.now() });
}

/** The host's bookings, by start then id, paged. Index bookings_host_start. */
export async function listHostBookings(
  knex: Knex,
  hostUserId: number,
  options: { status?: BookingStatus | undefined; skip: number; take: number },
): Promise<Booking[]> {
  const query = knex('bookings').where({ host_user_id: hostUserId });
  if (options.status) query.where({ status: options.status });
  const rows = (await query
    .orderBy([
      { column: 'start_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .offset(options.skip)
    .limit(options.take)
    .select(COLUMNS)) as BookingRow[];
  return rows.map(mapBooking);
}

/** Bookings of a team's event types, by start time (list_team_bookings, GET /v2/teams/:teamId/bookings). */
export async function listTeamBookings(
  knex: Knex,
  teamId: number,
  options: { status?: BookingStatus | undefined; skip: number; take: number },
): Promise<Booking[]> {
  const query = knex('bookings').whereIn(
    'event_type_id',
    knex('event_types').where({ team_id: teamId }).select('id'),
  );
  if (options.status) query.where({ status: options.status });
  const rows = (await query
    .orderBy([
      { column: 'start_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .offset(options.skip)
    .limit(options.take)
    .select(COLUMNS)) as BookingRow[];
  return rows.map(mapBooking);
}
