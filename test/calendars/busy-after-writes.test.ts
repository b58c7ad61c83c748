// Our own calendar writes, step by step (docs/calendars.md "For operators"): a cancel frees its
// time at once in slots, even when the host's calendar was read (and cached) between the cancel and
// the queue deleting the event; a create retried after its answer was lost finds its event already
// there; a connection waiting to be reconnected is not sent its refused credentials again, and its
// writes go through once it is reconnected. The write queue is run by hand here, so each step
// happens in order.
import test, { type ExecutionContext } from 'ava';
import { DateTime } from 'luxon';
import { createLogger } from '@sched/kit/logger';
import { startCalendarWriteWorker } from '@sched/runtime/calendar-write-worker';
import { openCalendars } from '@sched/runtime/runtime';
import { insertUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { setUpRadicale, vevent } from '../support/radicale.ts';
import { attendee, personalEventType } from '../support/scheduling.ts';
import { setUpTestSystem } from '../support/system.ts';

const ZONE = 'Europe/Berlin';
const alex = { username: 'alex', password: 'correct horse battery staple' };
const bea = { username: 'bea', password: 'another horse battery staple' };
const cleo = { username: 'cleo', password: 'yet another horse battery staple' };
const radicale = setUpRadicale(test, [alex, bea, cleo]);
// The system's own worker never comes round: this file runs the queue itself.
const system = setUpTestSystem(
  test,
  { OUTBOUND_PRIVATE_NETWORKS: 'allow' },
  { calendarWrites: { intervalMs: 3_600_000 } },
);
const call = apiClient(() => system.url);
const thursday = DateTime.fromISO('2031-03-06T10:00', { zone: ZONE });

/** A write worker of this test's own, which only runs when told to (`runOnce`). */
function manualWorker(t: ExecutionContext) {
  const logger = createLogger({ level: 'silent' });
  const config = { ...system.config, cookieKeys: system.config.cookieKeys ?? [] };
  const writes = startCalendarWriteWorker(
    { stores: system.stores, logger, config, calendars: openCalendars(config, logger, system.stores) },
    { intervalMs: 3_600_000, policy: { maxAttempts: 10, baseDelaySeconds: 0, maxDelaySeconds: 0 } },
  );
  t.teardown(() => writes.stop());
  return writes;
}

test.serial('a cancelled booking’s time is offered again as soon as its event is deleted', async (t) => {
  const knex = system.stores.db.knex;
  const writes = manualWorker(t);
  const host = await insertUser(knex, { timeZone: ZONE });
  const eventTypeId = (await personalEventType(knex, host.id, { lengthInMinutes: 60 })).id;
  const work = await radicale.makeCalendar(alex, 'work', 'Work');
  const connected = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: radicale.url, username: alex.username, password: alex.password },
  });
  t.is(connected.status, 201);
  const offersTen = async () => {
    const date = thursday.toISODate()!;
    const slots = await call(
      'GET',
      `/v2/slots?eventTypeId=${eventTypeId}&start=${date}&end=${date}&timeZone=${ZONE}`,
    );
    return ((slots.body.data[date] ?? []) as Array<{ start: string }>).some((slot) =>
      slot.start.includes('T10:00'),
    );
  };
  const ours = async () => (await radicale.events(alex, work)).filter((ics) => ics.includes('@sched'));

  t.true(await offersTen());
  const booked = await call('POST', '/v2/bookings', {
    body: { eventTypeId, start: thursday.toISO(), attendee },
  });
  t.is(booked.status, 201);
  t.is(await writes.runOnce(), 1);
  t.is((await ours()).length, 1);

  t.is((await call('POST', `/v2/bookings/${booked.body.data.uid}/cancel`, { body: {} })).status, 200);
  // Read before the queue deleted the event: busy in the calendar still.
  t.false(await offersTen());
  t.is(await writes.runOnce(), 1);
  t.is((await ours()).length, 0);
  t.true(await offersTen());
});

test.serial(
  'a create retried after its answer was lost finds its event there, and a cancel still deletes it',
  async (t) => {
    const knex = system.stores.db.knex;
    const writes = manualWorker(t);
    const host = await insertUser(knex, { timeZone: ZONE });
    const eventTypeId = (await personalEventType(knex, host.id, { lengthInMinutes: 60 })).id;
    const home = await radicale.makeCalendar(bea, 'home', 'Home');
    const connected = await call('POST', '/v2/calendars/caldav', {
      token: host.apiKey,
      body: { serverUrl: radicale.url, username: bea.username, password: bea.password },
    });
    t.is(connected.status, 201);
    const booked = await call('POST', '/v2/bookings', {
      body: { eventTypeId, start: thursday.plus({ hours: 2 }).toISO(), attendee },
    });
    t.is(booked.status, 201);
    const uid = `${booked.body.data.uid}@sched`;
    // The first attempt's PUT reached the server, but its answer never came back.
    await radicale.putEvent(
      bea,
      home,
      encodeURIComponent(uid),
      vevent(uid, ['DTSTART:20310306T110000Z', 'DTEND:20310306T120000Z', 'SUMMARY:x']),
    );
    t.is(await writes.runOnce(), 1, 'the retried create is done');
    const [connection] = (await call('GET', '/v2/calendars', { token: host.apiKey })).body.data;
    t.is(connection.lastSyncError, null);

    t.is((await call('POST', `/v2/bookings/${booked.body.data.uid}/cancel`, { body: {} })).status, 200);
    t.is(await writes.runOnce(), 1);
    t.deepEqual(await radicale.events(bea, home), []);
  },
);

test.serial('a connection waiting to be reconnected is not written to until it is', async (t) => {
  const knex = system.stores.db.knex;
  const writes = manualWorker(t);
  const host = await insertUser(knex, { timeZone: ZONE });
  const eventTypeId = (await personalEventType(knex, host.id, { lengthInMinutes: 60 })).id;
  const work = await radicale.makeCalendar(cleo, 'work', 'Work');
  const connect = () =>
    call('POST', '/v2/calendars/caldav', {
      token: host.apiKey,
      body: { serverUrl: radicale.url, username: cleo.username, password: cleo.password },
    });
  const connected = await connect();
  t.is(connected.status, 201);
  // Refused once (say the password was changed and changed back): needs_reauth until reconnected.
  await knex('calendar_connections').where({ id: connected.body.data.id }).update({ status: 'needs_reauth' });
  const booked = await call('POST', '/v2/bookings', {
    body: { eventTypeId, start: thursday.plus({ hours: 4 }).toISO(), attendee },
  });
  t.is(booked.status, 201);
  t.is(await writes.runOnce(), 0);
  t.deepEqual(await radicale.events(cleo, work), [], 'nothing sent to the server');
  const [waiting] = (await call('GET', '/v2/calendars', { token: host.apiKey })).body.data;
  t.regex(waiting.lastSyncError.message, /reconnect/);

  t.is((await connect()).status, 201);
  t.is(await writes.runOnce(), 1);
  t.is((await radicale.events(cleo, work)).length, 1);
  const [written] = (await call('GET', '/v2/calendars', { token: host.apiKey })).body.data;
  t.like(written, { status: 'active', lastSyncError: null });
});
