// Booking-limit enforcement through the booking service (issue 6, "Enforcement"), on the test
// database (PGlite, or Postgres with DATABASE_URL). Fixed dates in 2026; "now" is 2025-01-01.
import { getBookingLimits } from '@sched/db/queries/booking-limits';
import type { EventType } from '@sched/db/queries/event-types';
import type { User } from '@sched/db/queries/users';
import { AppError } from '@sched/kit/errors';
import test, { type ExecutionContext } from 'ava';
import {
  cancelBooking,
  createBooking,
  rescheduleBooking,
} from '../../services/api/src/scheduling/booking-service.ts';
import { setUpTestDatabase } from '../support/database.ts';
import { insertTeam } from '../support/factories.ts';
import {
  addMembership,
  attendee,
  localTime,
  makeUser,
  personalEventType,
  setAvailability,
  setLimits,
  TEST_NOW,
  teamEventType,
} from '../support/scheduling.ts';

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;

const book = (eventType: EventType, start: Date | string) =>
  createBooking(knex(), {
    eventTypeId: eventType.id,
    start: typeof start === 'string' ? new Date(start) : start,
    attendee,
    now: TEST_NOW,
  });

async function accepted(t: ExecutionContext, eventType: EventType, start: Date | string, message?: string) {
  const result = await book(eventType, start);
  t.is(result.booking.status, 'accepted', message);
  return result.booking;
}

async function refused(
  t: ExecutionContext,
  eventType: EventType,
  start: Date | string,
  reason: 'booking_limit_reached' | 'slot_unavailable',
  message?: string,
) {
  const error = await t.throwsAsync(() => book(eventType, start), { instanceOf: AppError }, message);
  t.is(error?.status, 409, message);
  t.is(error?.message, reason, message);
}

/** A host available all day every day, with these limits, and a 30-minute personal event type. */
async function host(
  limits: Parameters<typeof setLimits>[2],
  options: Parameters<typeof makeUser>[1] = {},
): Promise<{ user: User; eventType: EventType }> {
  const user = await makeUser(knex(), options);
  await setAvailability(knex(), user);
  await setLimits(knex(), user.id, limits);
  return { user, eventType: await personalEventType(knex(), user.id) };
}

// ---- each interval alone ----------------------------------------------------------------------

test('per day: the booking that would make the count exceed the limit is refused; the next day is free', async (t) => {
  const { eventType } = await host({ perDay: 2 });
  await accepted(t, eventType, '2026-06-10T09:00:00Z');
  await accepted(t, eventType, '2026-06-10T10:00:00Z');
  await refused(
    t,
    eventType,
    '2026-06-10T11:00:00Z',
    'booking_limit_reached',
    'count equal to the limit refuses',
  );
  await accepted(t, eventType, '2026-06-11T00:00:00Z', 'the limit resets at midnight');
});

test('per week (Monday start): Monday and Sunday share a week; the following Monday starts a new one', async (t) => {
  const { eventType } = await host({ perWeek: 2 });
  await accepted(t, eventType, '2026-06-08T09:00:00Z'); // Monday
  await accepted(t, eventType, '2026-06-14T23:00:00Z'); // Sunday
  await refused(t, eventType, '2026-06-10T09:00:00Z', 'booking_limit_reached');
  await accepted(t, eventType, '2026-06-15T00:00:00Z', 'Monday 00:00 is a new week');
});

test('per week (Sunday start): Saturday closes the week and Sunday opens the next', async (t) => {
  const sunday = await host({ perWeek: 1 }, { weekStart: 'Sunday' });
  const monday = await host({ perWeek: 1 }, { weekStart: 'Monday' });
  for (const { eventType } of [sunday, monday]) await accepted(t, eventType, '2026-06-13T12:00:00Z'); // Saturday
  await accepted(t, sunday.eventType, '2026-06-14T00:00:00Z', 'Sunday is a new week for a Sunday-start user');
  await refused(
    t,
    monday.eventType,
    '2026-06-14T00:00:00Z',
    'booking_limit_reached',
    'same week for Monday-start',
  );
  await accepted(t, monday.eventType, '2026-06-15T00:00:00Z');
});

test("per month in the host's zone: 31 January 23:30 in New York is January, 1 February 00:00 is not", async (t) => {
  const zone = 'America/New_York';
  const { eventType } = await host({ perMonth: 2 }, { timeZone: zone });
  await accepted(t, eventType, localTime('2026-01-15T12:00', zone));
  await accepted(t, eventType, localTime('2026-01-31T23:30', zone)); // 04:30 UTC on 1 February
  await refused(t, eventType, localTime('2026-01-20T12:00', zone), 'booking_limit_reached');
  await accepted(t, eventType, localTime('2026-02-01T00:00', zone));
});

test("per year in the host's zone resets on 1 January local time", async (t) => {
  const zone = 'Asia/Tokyo';
  const { eventType } = await host({ perYear: 1 }, { timeZone: zone });
  await accepted(t, eventType, localTime('2026-12-31T23:30', zone)); // 14:30 UTC, still 31 December in UTC too
  await refused(t, eventType, localTime('2026-03-01T10:00', zone), 'booking_limit_reached');
  // 00:00 JST on 1 January is 15:00 UTC on 31 December: a new year for the host.
  await accepted(t, eventType, localTime('2027-01-01T00:00', zone));
});

// ---- combined ---------------------------------------------------------------------------------

test('day and week limits together: whichever is stricter at that moment refuses', async (t) => {
  const { eventType } = await host({ perDay: 2, perWeek: 3 });
  await accepted(t, eventType, '2026-06-08T09:00:00Z');
  await accepted(t, eventType, '2026-06-08T10:00:00Z');
  await refused(t, eventType, '2026-06-08T11:00:00Z', 'booking_limit_reached', 'the day is full');
  await accepted(t, eventType, '2026-06-09T09:00:00Z');
  await refused(
    t,
    eventType,
    '2026-06-10T09:00:00Z',
    'booking_limit_reached',
    'the week is full, the day is not',
  );
  await accepted(t, eventType, '2026-06-15T09:00:00Z');
});

test('all four limits together', async (t) => {
  const { eventType } = await host({ perDay: 1, perWeek: 2, perMonth: 3, perYear: 4 });
  await accepted(t, eventType, '2026-06-01T09:00:00Z');
  await refused(t, eventType, '2026-06-01T10:00:00Z', 'booking_limit_reached', 'day');
  await accepted(t, eventType, '2026-06-02T09:00:00Z');
  await refused(t, eventType, '2026-06-03T09:00:00Z', 'booking_limit_reached', 'week');
  await accepted(t, eventType, '2026-06-08T09:00:00Z');
  await refused(t, eventType, '2026-06-09T09:00:00Z', 'booking_limit_reached', 'month (week has room)');
  await refused(t, eventType, '2026-06-22T09:00:00Z', 'booking_limit_reached', 'month');
  await accepted(t, eventType, '2026-07-01T09:00:00Z');
  await refused(t, eventType, '2026-08-03T09:00:00Z', 'booking_limit_reached', 'year');
  await accepted(t, eventType, '2027-01-04T09:00:00Z');
});

test('lowering a limit below the current count makes the period full at once', async (t) => {
  const { user, eventType } = await host({});
  await accepted(t, eventType, '2026-06-10T09:00:00Z');
  await accepted(t, eventType, '2026-06-10T10:00:00Z');
  await setLimits(knex(), user.id, { perDay: 1 });
  await refused(t, eventType, '2026-06-10T11:00:00Z', 'booking_limit_reached');
  await setLimits(knex(), user.id, { perDay: null });
  await accepted(t, eventType, '2026-06-10T11:00:00Z', 'removing the limit frees the day');
  t.deepEqual(await getBookingLimits(knex(), user.id), {
    perDay: null,
    perWeek: null,
    perMonth: null,
    perYear: null,
  });
});

// ---- the host's zone and DST ----------------------------------------------------------------

test("a booking just before midnight in the host's zone counts for that local day, not the UTC day", async (t) => {
  const zone = 'Asia/Tokyo';
  const { eventType } = await host({ perDay: 1 }, { timeZone: zone });
  await accepted(t, eventType, localTime('2026-05-14T23:30', zone)); // 14:30 UTC on the 14th
  // 00:00 JST on the 15th is 15:00 UTC on the 14th: same UTC day, a new local day.
  await accepted(t, eventType, localTime('2026-05-15T00:00', zone));
  await refused(t, eventType, localTime('2026-05-15T23:00', zone), 'booking_limit_reached');
  const west = await host({ perDay: 1 }, { timeZone: 'America/Los_Angeles' });
  await accepted(t, west.eventType, localTime('2026-05-14T23:30', 'America/Los_Angeles')); // 06:30 UTC on the 15th
  await refused(
    t,
    west.eventType,
    localTime('2026-05-14T08:00', 'America/Los_Angeles'),
    'booking_limit_reached',
  );
  await accepted(t, west.eventType, '2026-05-15T07:00:00Z', '00:00 PDT on the 15th');
});

test('America/New_York DST days: spring forward (23 h) and fall back (25 h) are one day each', async (t) => {
  const zone = 'America/New_York';
  const { eventType } = await host({ perDay: 2 }, { timeZone: zone });
  // 8 March 2026: 00:30 EST and 23:00 EDT are 21.5 hours apart, the same local day.
  await accepted(t, eventType, localTime('2026-03-08T00:30', zone));
  await accepted(t, eventType, localTime('2026-03-08T23:00', zone));
  await refused(t, eventType, localTime('2026-03-08T12:00', zone), 'booking_limit_reached');
  await accepted(t, eventType, localTime('2026-03-09T00:00', zone));
  // 1 November 2026: the first 01:00 (EDT) and 23:30 EST are 23.5 hours apart, the same day.
  await accepted(t, eventType, '2026-11-01T05:00:00Z');
  await accepted(t, eventType, localTime('2026-11-01T23:30', zone));
  await refused(t, eventType, '2026-11-01T06:00:00Z', 'booking_limit_reached', 'the second 01:00 (EST)');
  await accepted(t, eventType, localTime('2026-11-02T00:00', zone));
});

test('Europe/Berlin DST days, and a Monday-start week that ends on a 25-hour Sunday', async (t) => {
  const zone = 'Europe/Berlin';
  const { eventType } = await host({ perDay: 1, perWeek: 3 }, { timeZone: zone });
  await accepted(t, eventType, localTime('2026-03-29T00:00', zone));
  await refused(t, eventType, localTime('2026-03-29T23:30', zone), 'booking_limit_reached', '23-hour day');
  await accepted(t, eventType, localTime('2026-10-20T10:00', zone));
  await accepted(t, eventType, localTime('2026-10-24T10:00', zone));
  await accepted(t, eventType, localTime('2026-10-25T23:30', zone)); // Sunday, 22:30 UTC
  await refused(t, eventType, localTime('2026-10-22T10:00', zone), 'booking_limit_reached', 'week full');
  await accepted(t, eventType, localTime('2026-10-26T00:00', zone), 'Monday 00:00 CET starts a new week');
});

// ---- what counts ----------------------------------------------------------------------------

test('cancellation frees capacity', async (t) => {
  const { eventType } = await host({ perDay: 1 });
  const first = await accepted(t, eventType, '2026-06-10T09:00:00Z');
  await refused(t, eventType, '2026-06-10T10:00:00Z', 'booking_limit_reached');
  const { booking } = await cancelBooking(knex(), first.uid, 'ill');
  t.is(booking.status, 'cancelled');
  t.is(booking.cancellationReason, 'ill');
  await accepted(t, eventType, '2026-06-10T10:00:00Z');
  await t.throwsAsync(() => cancelBooking(knex(), first.uid, null), {
    message: 'Booking is already cancelled',
  });
  await t.throwsAsync(() => cancelBooking(knex(), 'no-such-uid', null), { message: 'Booking not found' });
});

test('rescheduling: the old booking stops counting; a refused reschedule leaves it in place', async (t) => {
  const { eventType } = await host({ perDay: 1 });
  const a = await accepted(t, eventType, '2026-06-10T09:00:00Z');
  await accepted(t, eventType, '2026-06-11T09:00:00Z');
  // Into a full day: refused, and the original booking is still accepted.
  await t.throwsAsync(
    () => rescheduleBooking(knex(), { uid: a.uid, start: new Date('2026-06-11T12:00:00Z'), now: TEST_NOW }),
    {
      message: 'booking_limit_reached',
    },
  );
  await refused(t, eventType, '2026-06-10T12:00:00Z', 'booking_limit_reached', 'a still counts');
  // Within its own full day: allowed, its own place is freed first.
  const moved = await rescheduleBooking(knex(), {
    uid: a.uid,
    start: new Date('2026-06-10T09:15:00Z'),
    now: TEST_NOW,
  });
  t.is(moved.booking.rescheduledFromUid, a.uid);
  t.is(moved.booking.start.toISOString(), '2026-06-10T09:15:00.000Z');
  // Away to a free day: the old day is free again.
  const away = await rescheduleBooking(knex(), {
    uid: moved.booking.uid,
    start: new Date('2026-06-12T09:00:00Z'),
    now: TEST_NOW,
  });
  await accepted(t, eventType, '2026-06-10T14:00:00Z', 'rescheduled-away booking no longer counts');
  const old = await knex()('bookings')
    .where({ uid: moved.booking.uid })
    .first('status', 'cancellation_reason');
  t.deepEqual(old, { status: 'cancelled', cancellation_reason: 'rescheduled' });
  t.is(away.booking.status, 'accepted');
  await t.throwsAsync(
    () => rescheduleBooking(knex(), { uid: a.uid, start: new Date('2026-06-20T09:00:00Z'), now: TEST_NOW }),
    {
      message: 'Only an accepted booking can be rescheduled',
    },
  );
});

test('event-type limits are enforced on their own, beside the host limits', async (t) => {
  const user = await makeUser(knex());
  await setAvailability(knex(), user);
  const limited = await personalEventType(knex(), user.id, { bookingLimits: { perDay: 1 } });
  const other = await personalEventType(knex(), user.id);
  await accepted(t, limited, '2026-06-10T09:00:00Z');
  await refused(t, limited, '2026-06-10T10:00:00Z', 'booking_limit_reached', 'event type full for the day');
  await accepted(t, other, '2026-06-10T10:00:00Z', 'the host itself has no limit');
  // Now a host limit too: it counts every event type.
  await setLimits(knex(), user.id, { perDay: 2 });
  await refused(t, other, '2026-06-10T11:00:00Z', 'booking_limit_reached', 'host full: 2 bookings that day');
  await accepted(t, limited, '2026-06-11T09:00:00Z');
});

test('a user limit counts personal and team bookings alike', async (t) => {
  const a = await makeUser(knex());
  await setAvailability(knex(), a);
  await setLimits(knex(), a.id, { perDay: 2 });
  const teamId = await insertTeam(knex());
  await addMembership(knex(), a.id, { teamId });
  const team = await teamEventType(knex(), teamId, [a.id]);
  const personal = await personalEventType(knex(), a.id);
  await accepted(t, team, '2026-06-10T09:00:00Z');
  await accepted(t, personal, '2026-06-10T10:00:00Z');
  await refused(t, personal, '2026-06-10T11:00:00Z', 'booking_limit_reached');
  await refused(t, team, '2026-06-10T11:00:00Z', 'booking_limit_reached');
});

test('team event types: a free host under their limits is chosen; fewest bookings first, lowest id on ties', async (t) => {
  const [a, b] = [await makeUser(knex()), await makeUser(knex())];
  const teamId = await insertTeam(knex());
  for (const user of [a!, b!]) {
    await setAvailability(knex(), user);
    await addMembership(knex(), user.id, { teamId });
  }
  const eventType = await teamEventType(knex(), teamId, [b!.id, a!.id]);
  const first = await book(eventType, '2026-06-10T09:00:00Z');
  t.is(first.booking.hostUserId, Math.min(a!.id, b!.id), 'tie: lowest id');
  const second = await book(eventType, '2026-06-10T10:00:00Z');
  t.is(second.booking.hostUserId, Math.max(a!.id, b!.id), 'fewest bookings this month');
  const third = await book(eventType, '2026-06-10T11:00:00Z');
  t.is(third.booking.hostUserId, Math.min(a!.id, b!.id));
  // Same time as third: the other host is free and takes it.
  const fourth = await book(eventType, '2026-06-10T11:00:00Z');
  t.is(fourth.booking.hostUserId, Math.max(a!.id, b!.id));
  await refused(t, eventType, '2026-06-10T11:00:00Z', 'slot_unavailable', 'both hosts taken');
  // Limits: a is full for the day, so b gets it even though a has fewer bookings.
  await setLimits(knex(), a!.id, { perDay: 2 });
  await setLimits(knex(), b!.id, { perDay: 3 });
  const low = Math.min(a!.id, b!.id) === a!.id ? a! : b!;
  await setLimits(knex(), low.id, { perDay: 2 });
  const fifth = await book(eventType, '2026-06-10T12:00:00Z');
  t.not(fifth.booking.hostUserId, low.id, 'the full host is skipped');
  await refused(t, eventType, '2026-06-10T13:00:00Z', 'booking_limit_reached', 'every free host is full');
});

test('team hosts who are no longer accepted members are not booked', async (t) => {
  const [a, b] = [await makeUser(knex()), await makeUser(knex())];
  const teamId = await insertTeam(knex());
  for (const user of [a!, b!]) {
    await setAvailability(knex(), user);
    await addMembership(knex(), user.id, { teamId });
  }
  const eventType = await teamEventType(knex(), teamId, [a!.id, b!.id]);
  await knex()('memberships').where({ user_id: a!.id, team_id: teamId }).delete();
  for (const hour of ['09', '10', '11']) {
    const { booking } = await book(eventType, `2026-06-10T${hour}:00:00Z`);
    t.is(booking.hostUserId, b!.id);
  }
});

// ---- slot availability --------------------------------------------------------------------

test('slot_unavailable: outside availability, overlapping a booking, or in the past', async (t) => {
  const user = await makeUser(knex(), { timeZone: 'Europe/Berlin' }); // default Mon-Fri 09:00-17:00
  const eventType = await personalEventType(knex(), user.id, { lengthInMinutes: 60 });
  await refused(t, eventType, localTime('2026-06-13T10:00', 'Europe/Berlin'), 'slot_unavailable', 'Saturday');
  await refused(
    t,
    eventType,
    localTime('2026-06-10T08:30', 'Europe/Berlin'),
    'slot_unavailable',
    'before 09:00',
  );
  await refused(
    t,
    eventType,
    localTime('2026-06-10T16:30', 'Europe/Berlin'),
    'slot_unavailable',
    'ends after 17:00',
  );
  await accepted(t, eventType, localTime('2026-06-10T16:00', 'Europe/Berlin'));
  await accepted(t, eventType, localTime('2026-06-10T09:00', 'Europe/Berlin'));
  await refused(t, eventType, localTime('2026-06-10T09:30', 'Europe/Berlin'), 'slot_unavailable', 'overlaps');
  await accepted(t, eventType, localTime('2026-06-10T10:00', 'Europe/Berlin'), 'touching is fine');
  await t.throwsAsync(
    () =>
      createBooking(knex(), {
        eventTypeId: eventType.id,
        start: new Date('2026-06-11T09:00:00Z'),
        attendee,
        now: Date.UTC(2026, 6, 1),
      }),
    { message: 'slot_unavailable' },
  );
  await t.throwsAsync(() => createBooking(knex(), { eventTypeId: 999_999, start: new Date(), attendee }), {
    message: 'Event type not found',
  });
});

test('a full period and a taken slot: the slot answer wins when no host is free at all', async (t) => {
  const { eventType } = await host({ perDay: 1 });
  await accepted(t, eventType, '2026-06-10T09:00:00Z');
  await refused(t, eventType, '2026-06-10T09:00:00Z', 'slot_unavailable');
  await refused(t, eventType, '2026-06-10T10:00:00Z', 'booking_limit_reached');
});
