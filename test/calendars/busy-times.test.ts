// Busy times of connected calendars when providers misbehave (docs/calendars.md "For operators"):
// an erroring or silent provider is left out (after at most 3 s), its outage logged once and
// counted; refused credentials mark the connection needs_reauth; entries are cached.
import { BusyTimes } from '@sched/calendars/busy-times';
import {
  type CalendarConnector,
  CredentialsRefusedError,
  ProviderUnavailableError,
} from '@sched/calendars/connector';
import { CredentialsBox } from '@sched/calendars/credentials-box';
import {
  bumpBusyVersion,
  deleteCalendarConnection,
  getCalendarConnection,
  saveCalendarConnection,
} from '@sched/db/queries/calendar-connections';
import { getHostProfiles } from '@sched/db/queries/schedules';
import type { Logger } from '@sched/kit/logger';
import test from 'ava';
import { register } from 'prom-client';
import { setUpTestDatabase } from '../support/database.ts';
import { makeUser } from '../support/scheduling.ts';

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;
const box = new CredentialsBox('b'.repeat(40));

async function hostWithConnection() {
  const host = await makeUser(knex());
  const connection = await saveCalendarConnection(knex(), {
    userId: host.id,
    provider: 'caldav',
    account: 'a',
    credentialsSealed: box.seal({ serverUrl: 'https://dav.example.com/', username: 'a', password: 'p' }),
    calendars: [
      { externalId: 'https://dav.example.com/a/work/', name: 'Work', readOnly: false, primary: true },
    ],
  });
  return { host: { id: host.id, timeZone: 'UTC' }, connection };
}

function recordingLogger() {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => warnings.push(message) } as unknown as Logger;
  return { logger, warnings };
}

const connector = (busyTimes: CalendarConnector['busyTimes']): CalendarConnector => ({
  account: async () => 'a',
  listCalendars: async () => [],
  busyTimes,
  createEvent: async () => ({ externalId: 'x' }),
  updateEvent: async () => {},
  deleteEvent: async () => {},
});

const skipped = async () =>
  ((await register.getSingleMetric('calendar_busy_times_skipped_total')?.get())?.values ?? []).reduce(
    (sum, value) => sum + value.value,
    0,
  );

const FROM = Date.parse('2031-03-03T00:00:00Z');
const TO = Date.parse('2031-03-04T00:00:00Z');
const BUSY = { start: new Date('2031-03-03T10:00:00Z'), end: new Date('2031-03-03T11:00:00Z') };

test.serial(
  'a failing provider is left out, logged once per outage, counted each time; then back',
  async (t) => {
    const { host } = await hostWithConnection();
    const { logger, warnings } = recordingLogger();
    let failing = true;
    const busy = new BusyTimes({
      knex: knex(),
      logger,
      connectorOf: () =>
        connector(async () => {
          if (failing) throw new ProviderUnavailableError('HTTP 503');
          return [BUSY];
        }),
    });
    const before = await skipped();
    for (let i = 0; i < 3; i++) t.deepEqual((await busy.ofHosts([host], FROM, TO)).get(host.id), []);
    t.is(warnings.length, 1, 'one line for the outage');
    t.is((await skipped()) - before, 3);
    failing = false;
    t.is((await busy.ofHosts([host], FROM, TO)).get(host.id)!.length, 1);
    t.is(warnings.length, 2, 'one line when it answers again');
  },
);

test.serial('a provider that does not answer is given up after 3 s and left out', async (t) => {
  const { host } = await hostWithConnection();
  const { logger } = recordingLogger();
  const busy = new BusyTimes({
    knex: knex(),
    logger,
    connectorOf: () => connector(() => new Promise(() => {})),
  });
  t.deepEqual((await busy.ofHosts([host], FROM, TO)).get(host.id), []);
});

test.serial('refused credentials: needs_reauth, and the connection is not asked again', async (t) => {
  const { host, connection } = await hostWithConnection();
  const { logger } = recordingLogger();
  let calls = 0;
  const busy = new BusyTimes({
    knex: knex(),
    logger,
    connectorOf: () =>
      connector(async () => {
        calls++;
        throw new CredentialsRefusedError('The calendar server refused these credentials');
      }),
  });
  await busy.ofHosts([host], FROM, TO);
  t.is((await getCalendarConnection(knex(), host.id, connection.id)).status, 'needs_reauth');
  await busy.ofHosts([host], FROM, TO);
  t.is(calls, 1);
});

test.serial('cached per connection; unchecked calendars are not read', async (t) => {
  const { host } = await hostWithConnection();
  const { logger } = recordingLogger();
  let calls = 0;
  const busy = new BusyTimes({
    knex: knex(),
    logger,
    connectorOf: () =>
      connector(async () => {
        calls++;
        return [BUSY];
      }),
  });
  await busy.ofHosts([host], FROM, TO);
  await busy.ofHosts([host], FROM + 3_600_000, TO);
  t.is(calls, 1, 'the same whole days: one read');
  await knex()('connected_calendars').where({ user_id: host.id }).update({ check_for_conflicts: false });
  t.deepEqual((await busy.ofHosts([host], FROM, TO)).get(host.id), []);
  t.is(calls, 1);
});

test.serial(
  "with the host's calendarVersion, connections come from memory until any write to them",
  async (t) => {
    const { host, connection } = await hostWithConnection();
    const { logger } = recordingLogger();
    let calls = 0;
    const busy = new BusyTimes({
      knex: knex(),
      logger,
      connectorOf: () =>
        connector(async () => {
          calls++;
          return [BUSY];
        }),
    });
    const connectionQueries: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (query.sql.includes('calendar_connections')) connectionQueries.push(query.sql);
    };
    // What slots do: the version comes with the host's profile.
    const asRead = async () => {
      const [profile] = await getHostProfiles(knex(), [host.id]);
      return { ...host, calendarVersion: profile!.calendarVersion };
    };
    knex().on('query', onQuery);
    try {
      t.is((await busy.ofHosts([await asRead()], FROM, TO)).get(host.id)!.length, 1);
      const loads = connectionQueries.length;
      t.is((await busy.ofHosts([await asRead()], FROM, TO)).get(host.id)!.length, 1);
      t.is(connectionQueries.length, loads, 'no calendar query while nothing changed');
      t.is(calls, 1);

      // Our own booking (its transaction bumps the busy version): read again from the provider.
      await bumpBusyVersion(knex(), [host.id]);
      await busy.ofHosts([await asRead()], FROM, TO);
      t.is(calls, 2);

      // The user's choice, written straight to the table: the next read sees it.
      await knex()('connected_calendars').where({ user_id: host.id }).update({ check_for_conflicts: false });
      t.deepEqual((await busy.ofHosts([await asRead()], FROM, TO)).get(host.id), []);
      await knex()('connected_calendars').where({ user_id: host.id }).update({ check_for_conflicts: true });
      t.is((await busy.ofHosts([await asRead()], FROM, TO)).get(host.id)!.length, 1);

      // Disconnected: nothing is busy any more.
      await deleteCalendarConnection(knex(), host.id, connection.id);
      t.deepEqual((await busy.ofHosts([await asRead()], FROM, TO)).get(host.id), []);
    } finally {
      knex().off('query', onQuery);
    }
  },
);

test.serial('deleting a user with connections still works (the version trigger on cascades)', async (t) => {
  const { host } = await hostWithConnection();
  await knex()('users').where({ id: host.id }).delete();
  t.is((await knex()('calendar_connections').where({ user_id: host.id })).length, 0);
});

test.serial(
  'providers are asked for a day more on each side of the whole UTC days (all-day events sit in the host zone)',
  async (t) => {
    const { host } = await hostWithConnection();
    const { logger } = recordingLogger();
    const asked: Array<{ start: Date; end: Date }> = [];
    const busy = new BusyTimes({
      knex: knex(),
      logger,
      connectorOf: () =>
        connector(async (_ids, range) => {
          asked.push(range);
          return [];
        }),
    });
    // One hour late on 3 March (UTC): a host at UTC-8 is in the evening of 2 March, one at UTC+13
    // in the morning of 4 March, and all-day events of those days must come back.
    await busy.ofHosts([host], FROM + 23 * 3_600_000, TO);
    t.deepEqual(
      asked.map((range) => [range.start.toISOString(), range.end.toISOString()]),
      [['2031-03-02T00:00:00.000Z', '2031-03-05T00:00:00.000Z']],
    );
  },
);
