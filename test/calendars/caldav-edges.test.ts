// Edges of CalDAV busy times against a real server (radicale), through the API: all-day and
// floating events of a host far from UTC checked on a single booking (not only in slots), events
// that straddle the range asked for, booking limits and busy times together, and a password
// changed at the server turning the connection needs_reauth.
import test from 'ava';
import { insertUser, type TestUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { setUpCalDavSystem, setUpRadicale, vevent, type RadicaleUser } from '../support/radicale.ts';
import { attendee, personalEventType, setAvailability, setLimits } from '../support/scheduling.ts';

const ana = { username: 'ana', password: 'ana horse battery staple' };
const ben = { username: 'ben', password: 'ben horse battery staple' };
const cai = { username: 'cai', password: 'cai horse battery staple' };
const dev = { username: 'dev', password: 'dev horse battery staple' };
const users = [ana, ben, cai, dev];
const radicale = setUpRadicale(test, users);
const system = setUpCalDavSystem(test);
const call = apiClient(() => system.url);
const knex = () => system.stores.db.knex;

async function connectedHost(
  user: RadicaleUser,
  timeZone: string,
): Promise<TestUser & { connectionId: number }> {
  const host = await insertUser(knex(), { timeZone });
  const connected = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: radicale.url, username: user.username, password: user.password },
  });
  if (connected.status !== 201)
    throw new Error(`connect: ${connected.status} ${JSON.stringify(connected.body)}`);
  return { ...host, connectionId: connected.body.data.id };
}

const busyTimes = async (host: TestUser, query: string) => {
  const response = await call('GET', `/v2/calendars/busy-times?${query}`, { token: host.apiKey });
  if (response.status !== 200)
    throw new Error(`busy-times: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body.data as Array<{ start: string; end: string }>).map((b) => [b.start, b.end]);
};

test.serial(
  'a host west of UTC: an all-day event and a floating evening event refuse a single booking late in their day',
  async (t) => {
    const zone = 'America/Los_Angeles';
    const work = await radicale.makeCalendar(ana, 'work', 'Work');
    // Wednesday 5 March 2031, all day (PST, UTC-8): 08:00Z on the 5th to 08:00Z on the 6th.
    await radicale.putEvent(
      ana,
      work,
      'away',
      vevent('away', ['DTSTART;VALUE=DATE:20310305', 'DTEND;VALUE=DATE:20310306', 'SUMMARY:away']),
    );
    // Thursday 22:00-23:00 wall clock, no zone: the host's evening (06:00Z-07:00Z on Friday).
    await radicale.putEvent(
      ana,
      work,
      'evening',
      vevent('evening', ['DTSTART:20310306T220000', 'DTEND:20310306T230000', 'SUMMARY:evening']),
    );
    const host = await connectedHost(ana, zone);
    await setAvailability(knex(), host.user);
    const eventTypeId = (await personalEventType(knex(), host.id, { lengthInMinutes: 30 })).id;

    for (const start of ['2031-03-05T23:00:00-08:00', '2031-03-06T22:00:00-08:00']) {
      const response = await call('POST', '/v2/bookings', { body: { eventTypeId, start, attendee } });
      t.is(response.status, 409, start);
      t.is(response.body.error?.message, 'slot_unavailable', start);
    }
    t.is(
      (
        await call('POST', '/v2/bookings', {
          body: { eventTypeId, start: '2031-03-06T23:00:00-08:00', attendee },
        })
      ).status,
      201,
      'free right after the evening event',
    );
    t.deepEqual(await busyTimes(host, 'start=2031-03-05T23:00:00-08:00&end=2031-03-05T23:30:00-08:00'), [
      ['2031-03-06T07:00:00.000Z', '2031-03-06T07:30:00.000Z'],
    ]);
  },
);

test.serial('a host east of UTC: an all-day event blocks the early hours of its day', async (t) => {
  const zone = 'Pacific/Auckland';
  const home = await radicale.makeCalendar(ben, 'home', 'Home');
  // Wednesday 5 March 2031 in Auckland (NZDT, UTC+13): 11:00Z on the 4th to 11:00Z on the 5th.
  await radicale.putEvent(
    ben,
    home,
    'away',
    vevent('away', ['DTSTART;VALUE=DATE:20310305', 'DTEND;VALUE=DATE:20310306', 'SUMMARY:away']),
  );
  const host = await connectedHost(ben, zone);
  await setAvailability(knex(), host.user);
  const eventTypeId = (await personalEventType(knex(), host.id, { lengthInMinutes: 30 })).id;
  const response = await call('POST', '/v2/bookings', {
    body: { eventTypeId, start: '2031-03-05T09:00:00+13:00', attendee },
  });
  t.is(response.status, 409);
  t.deepEqual(await busyTimes(host, 'start=2031-03-05&end=2031-03-05'), [
    ['2031-03-04T11:00:00.000Z', '2031-03-05T11:00:00.000Z'],
  ]);
});

test.serial(
  'an event straddling the range asked for is cut to it; one just outside is not listed',
  async (t) => {
    const work = await radicale.makeCalendar(cai, 'work', 'Work');
    await radicale.putEvent(
      cai,
      work,
      'overnight',
      vevent('overnight', ['DTSTART:20310303T220000Z', 'DTEND:20310304T020000Z', 'SUMMARY:overnight']),
    );
    await radicale.putEvent(
      cai,
      work,
      'before',
      vevent('before', ['DTSTART:20310303T200000Z', 'DTEND:20310303T210000Z', 'SUMMARY:before']),
    );
    const host = await connectedHost(cai, 'UTC');
    t.deepEqual(await busyTimes(host, 'start=2031-03-04&end=2031-03-04'), [
      ['2031-03-04T00:00:00.000Z', '2031-03-04T02:00:00.000Z'],
    ]);
    t.deepEqual(await busyTimes(host, 'start=2031-03-03T21:00:00Z&end=2031-03-03T23:00:00Z'), [
      ['2031-03-03T22:00:00.000Z', '2031-03-03T23:00:00.000Z'],
    ]);
  },
);

test.serial(
  'booking limits and busy times both apply; a password changed at the server makes the connection needs_reauth',
  async (t) => {
    const zone = 'Europe/Berlin';
    const work = await radicale.makeCalendar(dev, 'work', 'Work');
    await radicale.putEvent(
      dev,
      work,
      'friday',
      vevent('friday', [
        `DTSTART;TZID=${zone}:20310307T100000`,
        `DTEND;TZID=${zone}:20310307T110000`,
        'SUMMARY:friday',
      ]),
    );
    const host = await connectedHost(dev, zone);
    await setLimits(knex(), host.id, { perDay: 1 });
    const eventTypeId = (await personalEventType(knex(), host.id, { lengthInMinutes: 60 })).id;
    const slots = async () => {
      const response = await call(
        'GET',
        `/v2/slots?eventTypeId=${eventTypeId}&start=2031-03-06&end=2031-03-07&timeZone=${zone}`,
      );
      t.is(response.status, 200);
      const of = (date: string) =>
        ((response.body.data[date] ?? []) as Array<{ start: string }>).map((slot) =>
          slot.start.slice(11, 16),
        );
      return { thursday: of('2031-03-06'), friday: of('2031-03-07') };
    };
    t.is(
      (
        await call('POST', '/v2/bookings', {
          body: { eventTypeId, start: '2031-03-06T09:00:00+01:00', attendee },
        })
      ).status,
      201,
    );
    const before = await slots();
    t.deepEqual(before.thursday, [], 'the day limit is reached');
    t.false(before.friday.includes('10:00'), 'busy in the calendar');
    t.true(before.friday.includes('09:00') && before.friday.includes('11:00'));
    const intoBusy = await call('POST', '/v2/bookings', {
      body: { eventTypeId, start: '2031-03-07T10:00:00+01:00', attendee },
    });
    t.is(intoBusy.status, 409);
    t.is(intoBusy.body.error.message, 'slot_unavailable');

    await radicale.stop();
    await radicale.start(users.map((user) => (user === dev ? { ...dev, password: 'changed' } : user)));
    try {
      // The booking reads the calendar (a day not read before) and is refused the credentials.
      t.is(
        (
          await call('POST', '/v2/bookings', {
            body: { eventTypeId, start: '2031-03-10T09:00:00+01:00', attendee },
          })
        ).status,
        201,
      );
      const [connection] = (await call('GET', '/v2/calendars', { token: host.apiKey })).body.data;
      t.is(connection.status, 'needs_reauth');
      t.true((await slots()).friday.includes('10:00'), 'its busy times are no longer read');
    } finally {
      await radicale.stop();
      await radicale.start(users);
    }
  },
);
