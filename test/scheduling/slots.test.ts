// Slot computation and the booking-limit effect on availability (docs/scheduling.md "Enforcement"):
// a period at its limit shows no slots; the next period shows them again.
import { cancelBooking, createBooking } from '../../services/api/src/scheduling/booking-service.ts';
import { computeSlots } from '../../services/api/src/scheduling/slots.ts';
import type { EventType } from '@sched/db/queries/event-types';
import test from 'ava';
import { DateTime } from 'luxon';
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

const slots = async (eventType: EventType, from: string, to: string, now = TEST_NOW) =>
  (await computeSlots(knex(), eventType, { from: Date.parse(from), to: Date.parse(to), now })).map((ms) =>
    new Date(ms).toISOString(),
  );
/** Slots per UTC date. */
const perDay = (list: string[]) => {
  const out: Record<string, number> = {};
  for (const iso of list) out[iso.slice(0, 10)] = (out[iso.slice(0, 10)] ?? 0) + 1;
  return out;
};
const book = (eventType: EventType, start: string) =>
  createBooking(knex(), { eventTypeId: eventType.id, start: new Date(start), attendee, now: TEST_NOW });

test('the default schedule gives Monday to Friday 09:00-17:00 in the host zone, one slot per event length', async (t) => {
  const host = await makeUser(knex(), { timeZone: 'Europe/Berlin' });
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 60 });
  // Week of Monday 8 June 2026 (CEST, UTC+2).
  const list = await slots(eventType, '2026-06-08T00:00:00Z', '2026-06-14T23:59:59Z');
  t.deepEqual(perDay(list), {
    '2026-06-08': 8,
    '2026-06-09': 8,
    '2026-06-10': 8,
    '2026-06-11': 8,
    '2026-06-12': 8,
  });
  t.is(list[0], '2026-06-08T07:00:00.000Z');
  t.is(list[7], '2026-06-08T14:00:00.000Z', 'the last slot ends at 17:00');
});

test('slots follow the host zone across a DST change (New York, 6 and 9 March 2026)', async (t) => {
  const host = await makeUser(knex(), { timeZone: 'America/New_York' });
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 480 });
  const list = await slots(eventType, '2026-03-06T00:00:00Z', '2026-03-10T00:00:00Z');
  t.deepEqual(list, ['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
});

test('slots in the past are not offered', async (t) => {
  const host = await makeUser(knex());
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 60 });
  const now = Date.parse('2026-06-10T12:30:00Z');
  const list = await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-10T23:59:59Z', now);
  t.deepEqual(list, [
    '2026-06-10T13:00:00.000Z',
    '2026-06-10T14:00:00.000Z',
    '2026-06-10T15:00:00.000Z',
    '2026-06-10T16:00:00.000Z',
  ]);
});

test('a taken slot disappears; a cancelled booking gives it back', async (t) => {
  const host = await makeUser(knex());
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 60 });
  const { booking } = await book(eventType, '2026-06-10T10:00:00Z');
  const day = await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-10T23:59:59Z');
  t.false(day.includes('2026-06-10T10:00:00.000Z'));
  t.is(day.length, 7);
  await cancelBooking(knex(), booking.uid, null);
  t.true(
    (await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-10T23:59:59Z')).includes(
      '2026-06-10T10:00:00.000Z',
    ),
  );
});

test('a full day shows no slots, the next day shows them again; cancelling reopens the day', async (t) => {
  const host = await makeUser(knex());
  await setLimits(knex(), host.id, { perDay: 2 });
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 60 });
  await book(eventType, '2026-06-10T09:00:00Z');
  t.deepEqual(perDay(await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-11T23:59:59Z')), {
    '2026-06-10': 7,
    '2026-06-11': 8,
  });
  const { booking } = await book(eventType, '2026-06-10T10:00:00Z');
  t.deepEqual(perDay(await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-11T23:59:59Z')), {
    '2026-06-11': 8,
  });
  await cancelBooking(knex(), booking.uid, null);
  t.deepEqual(perDay(await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-11T23:59:59Z')), {
    '2026-06-10': 7,
    '2026-06-11': 8,
  });
});

test('a full week (Sunday start, New York) hides the whole week; the next week is back', async (t) => {
  const zone = 'America/New_York';
  const host = await makeUser(knex(), { timeZone: zone, weekStart: 'Sunday' });
  await setAvailability(knex(), host);
  await setLimits(knex(), host.id, { perWeek: 1 });
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 720 });
  await book(eventType, localTime('2026-06-09T12:00', zone).toISOString());
  const list = await slots(
    eventType,
    localTime('2026-06-06T00:00', zone).toISOString(),
    localTime('2026-06-15T00:00', zone).toISOString(),
  );
  const localDates = [...new Set(list.map((iso) => DateTime.fromISO(iso, { zone }).toISODate()))];
  // Saturday the 6th (previous week) and Sunday the 14th onwards (next week) only.
  t.deepEqual(localDates, ['2026-06-06', '2026-06-14', '2026-06-15']);
});

test('full month and full year: hidden until the local boundary', async (t) => {
  const zone = 'Europe/Berlin';
  const host = await makeUser(knex(), { timeZone: zone });
  await setAvailability(knex(), host);
  await setLimits(knex(), host.id, { perMonth: 1 });
  const eventType = await personalEventType(knex(), host.id, { lengthInMinutes: 1440 });
  await book(eventType, localTime('2026-06-15T00:00', zone).toISOString());
  const list = await slots(
    eventType,
    localTime('2026-06-29T00:00', zone).toISOString(),
    localTime('2026-07-02T00:00', zone).toISOString(),
  );
  t.deepEqual(list, [
    localTime('2026-07-01T00:00', zone).toISOString(),
    localTime('2026-07-02T00:00', zone).toISOString(),
  ]);

  await setLimits(knex(), host.id, { perMonth: null, perYear: 1 });
  const yearEnd = await slots(
    eventType,
    localTime('2026-12-30T00:00', zone).toISOString(),
    localTime('2027-01-01T00:00', zone).toISOString(),
  );
  t.deepEqual(yearEnd, [localTime('2027-01-01T00:00', zone).toISOString()]);
});

test('event-type limits hide that event type only', async (t) => {
  const host = await makeUser(knex());
  const limited = await personalEventType(knex(), host.id, {
    lengthInMinutes: 60,
    bookingLimits: { perDay: 1 },
  });
  const other = await personalEventType(knex(), host.id, { lengthInMinutes: 60 });
  await book(limited, '2026-06-10T09:00:00Z');
  t.deepEqual(perDay(await slots(limited, '2026-06-10T00:00:00Z', '2026-06-11T23:59:59Z')), {
    '2026-06-11': 8,
  });
  t.deepEqual(perDay(await slots(other, '2026-06-10T00:00:00Z', '2026-06-11T23:59:59Z')), {
    '2026-06-10': 7,
    '2026-06-11': 8,
  });
});

test('team event types offer a slot while any host is free and under their limits', async (t) => {
  const teamId = await insertTeam(knex());
  const a = await makeUser(knex());
  const b = await makeUser(knex(), { timeZone: 'America/New_York' });
  for (const user of [a, b]) await addMembership(knex(), user.id, { teamId });
  await setLimits(knex(), a.id, { perDay: 1 });
  await setLimits(knex(), b.id, { perDay: 1 });
  const eventType = await teamEventType(knex(), teamId, [a.id, b.id], { lengthInMinutes: 60 });
  // a: 09-17 UTC; b: 09-17 New York = 13-21 UTC. Together 09:00-21:00 UTC: 12 slots.
  t.is((await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-10T23:59:59Z')).length, 12);
  const first = await book(eventType, '2026-06-10T14:00:00Z');
  t.is(first.booking.hostUserId, a.id, 'tie: lowest id');
  // a is full for the day: only b's hours remain, minus 14:00 (b is free then but a is not... b is free).
  const after = await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-10T23:59:59Z');
  t.deepEqual(
    after,
    [13, 14, 15, 16, 17, 18, 19, 20].map((h) => `2026-06-10T${h}:00:00.000Z`),
  );
  await book(eventType, '2026-06-10T15:00:00Z');
  t.deepEqual(await slots(eventType, '2026-06-10T00:00:00Z', '2026-06-10T23:59:59Z'), []);
});

test('a host without any availability offers nothing', async (t) => {
  const host = await makeUser(knex());
  await setAvailability(knex(), host, []);
  const eventType = await personalEventType(knex(), host.id);
  t.deepEqual(await slots(eventType, '2026-06-08T00:00:00Z', '2026-06-14T23:59:59Z'), []);
});
