import { getBookingLimitsOf } from '@sched/db/queries/booking-limits';
import {
  type Booking,
  cancelBookingRow,
  countEventTypeBookings,
  countHostBookings,
  findBookingByUid,
  type HostCountProbe,
  insertBooking,
  listBusy,
  lockBookingScope,
} from '@sched/db/queries/bookings';
import { bookableHostIds, type EventType, findEventTypeById } from '@sched/db/queries/event-types';
import { getHostProfiles, type HostProfile } from '@sched/db/queries/schedules';
import { overlapsAny, withinWindows } from '@sched/policy/availability';
import {
  type BookingInterval,
  type BookingLimitSet,
  hasAnyLimit,
  limitedIntervals,
  periodOf,
  reachedLimit,
} from '@sched/policy/booking-periods';
import { ConflictError, NotFoundError } from '@sched/kit/errors';
import type { Knex } from 'knex';
import { type ExternalBusy, recordCalendarChange, withoutInterval } from './external-busy.ts';
import { eventTypeFrame, hostFrame, hostWindows } from './frames.ts';

const MINUTE = 60_000;

/** 409 messages clients test for: keep them exactly (docs/scheduling.md "Enforcement"). */
export const SLOT_UNAVAILABLE = 'slot_unavailable';
export const BOOKING_LIMIT_REACHED = 'booking_limit_reached';

export const slotUnavailable = () => new ConflictError(SLOT_UNAVAILABLE);
export const bookingLimitReached = () => new ConflictError(BOOKING_LIMIT_REACHED);

export interface Attendee {
  name: string;
  email: string;
  timeZone: string;
}

export interface BookingResult {
  booking: Booking;
  host: HostProfile;
}

interface Attempt {
  eventType: EventType;
  start: Date;
  attendee: Attendee;
  now: number;
  /** Reschedule: the booking being replaced (cancelled in the same transaction). */
  replaces?: Booking;
  /** Busy times of the hosts' connected calendars (none when not given). */
  calendars?: ExternalBusy | undefined;
}

/**
 * POST /v2/bookings. Checks outside the transaction what needs no lock (event type, hosts,
 * availability), then in one short transaction: lock the event type (when it has limits) and the
 * candidate hosts, re-check conflicts and count the periods, pick a host, insert. Concurrent
 * requests for the same host queue on the lock, so N requests against a limit of L accept exactly
 * min(N, L).
 */
export async function createBooking(
  knex: Knex,
  input: { eventTypeId: number; start: Date; attendee: Attendee; now?: number; calendars?: ExternalBusy },
): Promise<BookingResult> {
  const eventType = await findEventTypeById(knex, input.eventTypeId);
  if (!eventType) throw new NotFoundError('Event type not found');
  return book(knex, {
    eventType,
    start: input.start,
    attendee: input.attendee,
    now: input.now ?? Date.now(),
    calendars: input.calendars,
  });
}

/**
 * POST /v2/bookings/:uid/reschedule: a new booking of the same event type and attendee at `start`;
 * the old one becomes cancelled (reason "rescheduled") in the same transaction, so it no longer
 * counts against any limit nor blocks its own time, and stays accepted when the new time is refused.
 * A team booking keeps its host when that host can take the new time.
 */
export async function rescheduleBooking(
  knex: Knex,
  input: { uid: string; start: Date; now?: number; calendars?: ExternalBusy },
): Promise<BookingResult> {
  const old = await findBookingByUid(knex, input.uid);
  if (!old) throw new NotFoundError('Booking not found');
  if (old.status !== 'accepted') throw new ConflictError('Only an accepted booking can be rescheduled');
  const eventType = old.eventTypeId === null ? null : await findEventTypeById(knex, old.eventTypeId);
  if (!eventType) throw new ConflictError('The event type of this booking no longer exists');
  return book(knex, {
    eventType,
    start: input.start,
    attendee: old.attendee,
    now: input.now ?? Date.now(),
    replaces: old,
    calendars: input.calendars,
  });
}

/**
 * POST /v2/bookings/:uid/cancel. Cancelling frees the booking's time and its place in every limit;
 * the calendar event it became is deleted through the write queue (queued in the same transaction).
 */
export async function cancelBooking(knex: Knex, uid: string, reason: string | null): Promise<BookingResult> {
  const booking = await findBookingByUid(knex, uid);
  if (!booking) throw new NotFoundError('Booking not found');
  // No host: the host deleted their account, which cancelled the booking.
  const cancelled =
    booking.hostUserId === null
      ? null
      : await knex.transaction(async (trx) => {
          const row = await cancelBookingRow(trx, booking.id, reason);
          if (row?.hostUserId)
            await recordCalendarChange(trx, row.hostUserId, { bookingId: row.id, action: 'delete' });
          return row;
        });
  if (!cancelled || cancelled.hostUserId === null) throw new ConflictError('Booking is already cancelled');
  const [host] = await getHostProfiles(knex, [cancelled.hostUserId]);
  return { booking: cancelled, host: host! };
}

interface HostPlan {
  host: HostProfile;
  limits: BookingLimitSet;
  /** Where each limited interval's count of this host is in the probe list. */
  limitProbes: Array<{ interval: BookingInterval; index: number }>;
  /** Index of the round-robin count (team event types). */
  fairnessIndex: number | null;
}

async function book(knex: Knex, attempt: Attempt): Promise<BookingResult> {
  const { eventType, attendee, replaces } = attempt;
  const startMs = attempt.start.getTime();
  const endMs = startMs + eventType.lengthInMinutes * MINUTE;
  if (startMs < attempt.now) throw slotUnavailable();

  const hostIds = await bookableHostIds(knex, eventType);
  const [profiles, limitsByHost] = await Promise.all([
    getHostProfiles(knex, hostIds),
    getBookingLimitsOf(knex, hostIds),
  ]);
  // Hosts whose availability holds the whole slot; the rest cannot take it whatever their limits.
  let available = profiles.filter((host) => withinWindows(hostWindows(host, startMs, endMs), startMs, endMs));
  if (available.length === 0) throw slotUnavailable();
  // Busy in a connected calendar: read before the transaction, so no lock waits on a provider.
  if (attempt.calendars) {
    const external = await attempt.calendars.ofHosts(
      available.map((host) => ({
        id: host.id,
        timeZone: host.timeZone,
        calendarVersion: host.calendarVersion,
      })),
      startMs,
      endMs,
    );
    const busyOf = (hostId: number) => {
      const intervals = external.get(hostId) ?? [];
      return replaces && replaces.hostUserId === hostId
        ? withoutInterval(intervals, replaces.start.getTime(), replaces.end.getTime())
        : intervals;
    };
    available = available.filter((host) => !overlapsAny(busyOf(host.id), startMs, endMs));
    if (available.length === 0) throw slotUnavailable();
  }
  const eventFrame = eventTypeFrame(eventType, profiles);
  const eventLimited = hasAnyLimit(eventType.bookingLimits);
  const team = eventType.teamId !== null;
  const start = new Date(startMs);
  const end = new Date(endMs);

  return knex.transaction(async (trx) => {
    await lockBookingScope(trx, {
      eventTypeId: eventLimited ? eventType.id : null,
      hostIds: [...available.map((host) => host.id), ...(replaces?.hostUserId ? [replaces.hostUserId] : [])],
    });
    if (replaces) {
      const current = await findBookingByUid(trx, replaces.uid, { lock: true });
      if (current?.status !== 'accepted')
        throw new ConflictError('Only an accepted booking can be rescheduled');
      await cancelBookingRow(trx, current.id, 'rescheduled');
    }

    // 1. Who is free at that time (no overlapping accepted booking)?
    const busy = await listBusy(
      trx,
      available.map((host) => host.id),
      start,
      end,
    );
    const free = available.filter(
      (host) =>
        !overlapsAny(
          busy.filter((b) => b.hostId === host.id),
          startMs,
          endMs,
        ),
    );
    if (free.length === 0) throw slotUnavailable();

    // 2. The event type's own limits, on their own.
    if (eventLimited) {
      const intervals = limitedIntervals(eventType.bookingLimits);
      const periods = intervals.map(({ interval }) => periodOf(startMs, interval, eventFrame));
      const counts = await countEventTypeBookings(trx, eventType.id, periods);
      const byInterval = Object.fromEntries(intervals.map(({ interval }, i) => [interval, counts[i] ?? 0]));
      if (reachedLimit(eventType.bookingLimits, byInterval)) throw bookingLimitReached();
    }

    // 3. Each free host's own limits (every accepted booking they host counts), plus the
    //    round-robin count for team event types, in one statement.
    const probes: HostCountProbe[] = [];
    const plans: HostPlan[] = free.map((host) => {
      const limits = limitsByHost.get(host.id)!;
      const frame = hostFrame(host);
      const limitProbes = limitedIntervals(limits).map(({ interval }) => {
        const period = periodOf(startMs, interval, frame);
        probes.push({ hostId: host.id, start: period.start, end: period.end });
        return { interval, index: probes.length - 1 };
      });
      let fairnessIndex: number | null = null;
      if (team && free.length > 1) {
        const month = periodOf(startMs, 'month', frame);
        probes.push({ hostId: host.id, start: month.start, end: month.end, eventTypeId: eventType.id });
        fairnessIndex = probes.length - 1;
      }
      return { host, limits, limitProbes, fairnessIndex };
    });
    const counts = await countHostBookings(trx, probes);
    const eligible = plans.filter((plan) => {
      const byInterval = Object.fromEntries(
        plan.limitProbes.map(({ interval, index }) => [interval, counts[index]]),
      );
      return reachedLimit(plan.limits, byInterval) === null;
    });
    if (eligible.length === 0) throw bookingLimitReached();

    const chosen = chooseHost(eligible, counts, replaces?.hostUserId ?? undefined);
    const booking = await insertBooking(trx, {
      eventTypeId: eventType.id,
      hostUserId: chosen.host.id,
      start,
      end,
      attendee,
      rescheduledFromUid: replaces?.uid ?? null,
    });
    // The event in the host's calendar: created, or (reschedule) the old booking's event moved.
    // The old host differs only for a team booking that changed hands: theirs is deleted instead.
    const movedHere = replaces?.hostUserId === chosen.host.id;
    if (replaces?.hostUserId && !movedHere) {
      await recordCalendarChange(trx, replaces.hostUserId, { bookingId: replaces.id, action: 'delete' });
    }
    await recordCalendarChange(trx, chosen.host.id, {
      bookingId: booking.id,
      action: movedHere ? 'move' : 'create',
      fromBookingId: movedHere ? replaces!.id : null,
    });
    return { booking, host: chosen.host };
  });
}

/**
 * Team host choice among the eligible hosts: the previous host when rescheduling and still
 * eligible; otherwise the host with the fewest accepted bookings of this event type in the
 * calendar month (their zone) of the slot; ties go to the lowest user id.
 */
function chooseHost(eligible: HostPlan[], counts: number[], previousHostId: number | undefined): HostPlan {
  const previous = eligible.find((plan) => plan.host.id === previousHostId);
  if (previous) return previous;
  const load = (plan: HostPlan) => (plan.fairnessIndex === null ? 0 : (counts[plan.fairnessIndex] ?? 0));
  return [...eligible].sort((a, b) => load(a) - load(b) || a.host.id - b.host.id)[0]!;
}
