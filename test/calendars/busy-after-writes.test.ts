// Busy times after our own calendar writes (contract §16 "Freshness"): a cancel frees its time at
// once in slots, even when the host's calendar was read (and cached) between the cancel and the
// queue deleting the event. The write queue is run by hand here, so each step happens in order.
import test from 'ava';
import { DateTime } from 'luxon';
import { createLogger } from '@sched/kit/logger';
import { startCalendarWriteWorker } from '@sched/runtime/calendar-write-worker';
import { openCalendars } from '@sched/runtime/runtime';
import { insertUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { setUpRadicale } from '../support/radicale.ts';
import { attendee, personalEventType } from '../support/scheduling.ts';
import { setUpTestSystem } from '../support/system.ts';

const ZONE = 'Europe/Berlin';
const alex = { username: 'alex', password: 'correct horse battery staple' };
const radicale = setUpRadicale(test, [alex]);
// The system's own worker never comes round: this file runs the queue itself.
const system = setUpTestSystem(
  test,
  { OUTBOUND_PRIVATE_NETWORKS: 'allow' },
  { calendarWrites: { intervalMs: 3_600_000 } },
);
const call = apiClient(() => system.url);
const thursday = DateTime.fromISO('2031-03-06T10:00', { zone: ZONE });

test('a cancelled booking’s time is offered again as soon as its event is deleted', async (t) => {
  const knex = system.stores.db.knex;
  const logger = createLogger({ level: 'silent' });
  const config = { ...system.config, cookieKeys: system.config.cookieKeys ?? [] };
  const writes = startCalendarWriteWorker(
    {
      stores: system.stores,
      logger,
      config,
      calendars: openCalendars(config, logger, system.stores),
    },
    { intervalMs: 3_600_000 },
  );
  t.teardown(() => writes.stop());
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
