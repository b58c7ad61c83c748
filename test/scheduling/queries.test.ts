// The scheduling query modules on the database: limits, counts, and that counting is an indexed
// range query (its cost depends on the bookings in the period, not on the host's history).
import {
  clearBookingLimits,
  getBookingLimits,
  getBookingLimitsOf,
  isOrganizationMember,
  patchBookingLimits,
} from '@sched/db/queries/booking-limits';
import { countEventTypeBookings, countHostBookings, listBusy } from '@sched/db/queries/bookings';
import { getDefaultSchedule, getHostProfiles } from '@sched/db/queries/schedules';
import test from 'ava';
import { setUpTestDatabase } from '../support/database.ts';
import { insertOrganization, insertTeam } from '../support/factories.ts';
import { addMembership, makeUser, personalEventType } from '../support/scheduling.ts';

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;

const NONE = { perDay: null, perWeek: null, perMonth: null, perYear: null };

test('getBookingLimits: all four keys, null when there is no row or no such user', async (t) => {
  const user = await makeUser(knex());
  t.deepEqual(await getBookingLimits(knex(), user.id), NONE);
  t.deepEqual(await getBookingLimits(knex(), 987_654_321), NONE);
  t.deepEqual(await getBookingLimits(knex(), Number.NaN), NONE);
});

test('patchBookingLimits merges; clearBookingLimits removes the row', async (t) => {
  const user = await makeUser(knex());
  t.deepEqual(await patchBookingLimits(knex(), user.id, {}), NONE, 'empty patch writes nothing');
  t.is((await knex()('booking_limits').where({ user_id: user.id })).length, 0);
  t.deepEqual(await patchBookingLimits(knex(), user.id, { perDay: 1, perYear: 9 }), {
    ...NONE,
    perDay: 1,
    perYear: 9,
  });
  t.deepEqual(await patchBookingLimits(knex(), user.id, { perYear: null, perWeek: 3 }), {
    ...NONE,
    perDay: 1,
    perWeek: 3,
  });
  await clearBookingLimits(knex(), user.id);
  t.deepEqual(await getBookingLimits(knex(), user.id), NONE);
  t.is((await knex()('booking_limits').where({ user_id: user.id })).length, 0);
});

test('concurrent patches of different keys both land (one upsert each)', async (t) => {
  const user = await makeUser(knex());
  await Promise.all([
    patchBookingLimits(knex(), user.id, { perDay: 2 }),
    patchBookingLimits(knex(), user.id, { perWeek: 5 }),
    patchBookingLimits(knex(), user.id, { perMonth: 9 }),
  ]);
  t.deepEqual(await getBookingLimits(knex(), user.id), { perDay: 2, perWeek: 5, perMonth: 9, perYear: null });
});

test('the database refuses limits below 1 even if a caller skipped validation', async (t) => {
  const user = await makeUser(knex());
  await t.throwsAsync(() => patchBookingLimits(knex(), user.id, { perDay: 0 }));
});

test('getBookingLimitsOf returns every asked user', async (t) => {
  const [a, b] = [await makeUser(knex()), await makeUser(knex())];
  await patchBookingLimits(knex(), a!.id, { perDay: 4 });
  const map = await getBookingLimitsOf(knex(), [a!.id, b!.id]);
  t.deepEqual(map.get(a!.id), { ...NONE, perDay: 4 });
  t.deepEqual(map.get(b!.id), NONE);
  t.is((await getBookingLimitsOf(knex(), [])).size, 0);
});

test('isOrganizationMember: only an accepted membership with organization_id counts', async (t) => {
  const user = await makeUser(knex());
  t.false(await isOrganizationMember(knex(), user.id));
  const org = await insertOrganization(knex());
  await addMembership(knex(), user.id, { teamId: await insertTeam(knex(), org) });
  t.false(await isOrganizationMember(knex(), user.id), 'a team of the organization is not the organization');
  await addMembership(knex(), user.id, { organizationId: org }, { accepted: false });
  t.false(await isOrganizationMember(knex(), user.id), 'pending invitation');
  await knex()('memberships').where({ user_id: user.id, organization_id: org }).update({ accepted: true });
  t.true(await isOrganizationMember(knex(), user.id));
});

test('counts: accepted only, [start, end) half-open, optional event-type filter', async (t) => {
  const host = await makeUser(knex());
  const one = await personalEventType(knex(), host.id);
  const two = await personalEventType(knex(), host.id);
  const insert = (eventTypeId: number, start: string, status = 'accepted') =>
    knex()('bookings').insert({
      uid: `q-${host.id}-${start}-${status}-${eventTypeId}`,
      event_type_id: eventTypeId,
      host_user_id: host.id,
      start_at: start,
      end_at: new Date(Date.parse(start) + 1_800_000).toISOString(),
      status,
      attendee_name: 'A',
      attendee_email: 'a@example.com',
      attendee_time_zone: 'UTC',
    });
  await insert(one.id, '2026-06-10T00:00:00Z');
  await insert(one.id, '2026-06-10T23:30:00Z');
  await insert(two.id, '2026-06-10T12:00:00Z');
  await insert(one.id, '2026-06-10T13:00:00Z', 'cancelled');
  await insert(one.id, '2026-06-11T00:00:00Z');
  const day = { start: new Date('2026-06-10T00:00:00Z'), end: new Date('2026-06-11T00:00:00Z') };
  t.deepEqual(
    await countHostBookings(knex(), [
      { hostId: host.id, ...day },
      { hostId: host.id, ...day, eventTypeId: one.id },
      { hostId: host.id, ...day, eventTypeId: two.id },
      { hostId: host.id, start: day.end, end: new Date('2026-06-12T00:00:00Z') },
      { hostId: host.id + 1_000_000, ...day },
    ]),
    [3, 2, 1, 1, 0],
  );
  t.deepEqual(await countEventTypeBookings(knex(), one.id, [day]), [2]);
  t.deepEqual(await countHostBookings(knex(), []), []);
  const busy = await listBusy(
    knex(),
    [host.id],
    new Date('2026-06-10T23:45:00Z'),
    new Date('2026-06-11T00:10:00Z'),
  );
  t.deepEqual(busy.map((b) => new Date(b.start).toISOString()).sort(), [
    '2026-06-10T23:30:00.000Z',
    '2026-06-11T00:00:00.000Z',
  ]);
});

test('host profiles carry the user zone, weekStart and default schedule', async (t) => {
  const user = await makeUser(knex(), { timeZone: 'America/New_York', weekStart: 'Sunday' });
  const [profile] = await getHostProfiles(knex(), [user.id, 999_999]);
  t.like(profile, {
    id: user.id,
    timeZone: 'America/New_York',
    weekStart: 'Sunday',
    scheduleTimeZone: 'America/New_York',
  });
  t.is(profile!.rules.length, 5);
  t.is((await getDefaultSchedule(knex(), user.id))?.rules[0]?.startTime, '09:00');
});

test('counting a period is an index range scan on bookings_host_accepted_start', async (t) => {
  const host = await makeUser(knex());
  const other = await makeUser(knex());
  // 20,000 bookings of history for the host (and some for another host), bulk-inserted.
  await knex().raw(
    `insert into bookings (uid, host_user_id, start_at, end_at, status, attendee_name, attendee_email, attendee_time_zone)
     select 'hist-' || h || '-' || g, h, timestamptz '2020-01-01' + g * interval '1 hour',
            timestamptz '2020-01-01' + g * interval '1 hour' + interval '30 minutes',
            case when g % 7 = 0 then 'cancelled' else 'accepted' end, 'A', 'a@example.com', 'UTC'
       from generate_series(1, 20000) g, unnest(?::bigint[]) h`,
    [[host.id, other.id]],
  );
  await knex().raw('analyze bookings');
  const plan = await knex().raw(
    `explain select count(*) from bookings b
      where b.host_user_id = ? and b.status = 'accepted' and b.start_at >= ? and b.start_at < ?`,
    [host.id, '2021-01-01T00:00:00Z', '2021-01-02T00:00:00Z'],
  );
  const text = (plan.rows as Array<Record<string, string>>).map((row) => Object.values(row)[0]).join('\n');
  t.regex(text, /bookings_host_accepted_start/, text);
  t.notRegex(text, /Seq Scan/, text);
  const [count] = await countHostBookings(knex(), [
    { hostId: host.id, start: new Date('2021-01-01T00:00:00Z'), end: new Date('2021-01-02T00:00:00Z') },
  ]);
  t.true(count! >= 20 && count! <= 24);
});
