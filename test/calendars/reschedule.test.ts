// Rescheduling a booking whose event is already in the host's calendar: the event is that booking
// itself, so moving the booking by less than its length is not a conflict with it, while another
// event in the calendar still is; a team booking moved to another host leaves the first host's
// calendar for the new host's.
import test from 'ava';
import { DateTime } from 'luxon';
import { insertTeam, insertUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { setUpCalDavSystem, setUpRadicale, vevent } from '../support/radicale.ts';
import { waitUntil } from '../support/redis-server.ts';
import { addMembership, attendee, personalEventType, teamEventType } from '../support/scheduling.ts';

const ZONE = 'Europe/Berlin';
const alex = { username: 'alex', password: 'correct horse battery staple' };
const bo = { username: 'bo', password: 'bo horse battery staple' };
const cy = { username: 'cy', password: 'cy horse battery staple' };
const radicale = setUpRadicale(test, [alex, bo, cy]);
const system = setUpCalDavSystem(test);
const call = apiClient(() => system.url);
const thursday = DateTime.fromISO('2031-03-06T00:00', { zone: ZONE });
const at = (time: string) =>
  thursday.set({ hour: Number(time.slice(0, 2)), minute: Number(time.slice(3)) }).toISO()!;

test('a booking moved within its own time is not refused by its own event; another event still blocks', async (t) => {
  const knex = system.stores.db.knex;
  const host = await insertUser(knex, { timeZone: ZONE });
  const eventTypeId = (await personalEventType(knex, host.id, { lengthInMinutes: 60 })).id;
  const work = await radicale.makeCalendar(alex, 'work', 'Work');
  await radicale.putEvent(
    alex,
    work,
    'lunch',
    vevent('lunch', [
      `DTSTART;TZID=${ZONE}:20310306T120000`,
      `DTEND;TZID=${ZONE}:20310306T130000`,
      'SUMMARY:lunch',
    ]),
  );
  const connected = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: radicale.url, username: alex.username, password: alex.password },
  });
  t.is(connected.status, 201);

  const booked = await call('POST', '/v2/bookings', { body: { eventTypeId, start: at('10:00'), attendee } });
  t.is(booked.status, 201);
  const written = async () =>
    (await radicale.events(alex, work)).filter((ics) => ics.includes(`UID:${booked.body.data.uid}@sched`));
  await waitUntil('the event written', 20_000, async () => (await written()).length === 1);

  const moved = await call('POST', `/v2/bookings/${booked.body.data.uid}/reschedule`, {
    body: { start: at('10:30') },
  });
  t.is(moved.status, 201, JSON.stringify(moved.body));

  // Into lunch (12:00-13:00, not ours): still a conflict.
  const intoLunch = await call('POST', `/v2/bookings/${moved.body.data.uid}/reschedule`, {
    body: { start: at('11:30') },
  });
  t.is(intoLunch.status, 409);
  t.is(intoLunch.body.error.message, 'slot_unavailable');
});

test('a team booking rescheduled to another host: its event leaves the first host’s calendar for the new host’s', async (t) => {
  const knex = system.stores.db.knex;
  const teamId = await insertTeam(knex);
  // The first host has the lower id, so takes the first booking (ties go to the lowest id).
  const first = await insertUser(knex, { timeZone: ZONE });
  const second = await insertUser(knex, { timeZone: ZONE });
  const calendars = new Map<number, { user: typeof bo; path: string }>();
  for (const [host, user] of [
    [first, bo],
    [second, cy],
  ] as const) {
    await addMembership(knex, host.id, { teamId });
    calendars.set(host.id, { user, path: await radicale.makeCalendar(user, 'work', 'Work') });
    const connected = await call('POST', '/v2/calendars/caldav', {
      token: host.apiKey,
      body: { serverUrl: radicale.url, username: user.username, password: user.password },
    });
    t.is(connected.status, 201);
  }
  const eventTypeId = (await teamEventType(knex, teamId, [first.id, second.id], { lengthInMinutes: 60 })).id;
  const ours = async (hostId: number) => {
    const { user, path } = calendars.get(hostId)!;
    return (await radicale.events(user, path)).filter((ics) => ics.includes('@sched'));
  };
  const booked = await call('POST', '/v2/bookings', { body: { eventTypeId, start: at('10:00'), attendee } });
  t.is(booked.status, 201);
  t.is(booked.body.data.hosts[0].id, first.id);
  await waitUntil('the event written', 20_000, async () => (await ours(first.id)).length === 1);

  // Busy at 14:00 in the first host's calendar: the second host takes the new time.
  const { user, path } = calendars.get(first.id)!;
  await radicale.putEvent(
    user,
    path,
    'afternoon',
    vevent('afternoon', [`DTSTART;TZID=${ZONE}:20310306T140000`, `DTEND;TZID=${ZONE}:20310306T150000`]),
  );
  const moved = await call('POST', `/v2/bookings/${booked.body.data.uid}/reschedule`, {
    body: { start: at('14:00') },
  });
  t.is(moved.status, 201, JSON.stringify(moved.body));
  t.is(moved.body.data.hosts[0].id, second.id);
  await waitUntil(
    'the event in the new host’s calendar',
    20_000,
    async () => (await ours(second.id)).length === 1,
  );
  t.regex((await ours(second.id))[0]!, /DTSTART:20310306T130000Z/);
  await waitUntil('gone from the first host’s', 20_000, async () => (await ours(first.id)).length === 0);
});
