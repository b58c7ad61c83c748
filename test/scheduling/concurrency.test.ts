// No overbooking under concurrency (issue 6, "Deliver" 4): 50 simultaneous booking attempts in a
// period with limit N accept exactly N. Runs on PGlite and, with DATABASE_URL, on real Postgres
// (where the 50 attempts really run in parallel on a pool of connections).
import { AppError } from '@sched/kit/errors';
import test from 'ava';
import { createBooking } from '../../services/api/src/scheduling/booking-service.ts';
import { databaseBackends, setUpTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertTeam } from '../support/factories.ts';
import {
  addMembership,
  attendee,
  makeUser,
  personalEventType,
  setAvailability,
  setLimits,
  TEST_NOW,
  teamEventType,
} from '../support/scheduling.ts';

const ATTEMPTS = 50;
const MINUTE = 60_000;

async function race(
  database: TestDatabase,
  eventTypeId: number,
  starts: Date[],
): Promise<{ accepted: number; reasons: Map<string, number>; hosts: Map<number, number> }> {
  const results = await Promise.allSettled(
    starts.map((start) => createBooking(database.db.knex, { eventTypeId, start, attendee, now: TEST_NOW })),
  );
  const reasons = new Map<string, number>();
  const hosts = new Map<number, number>();
  let accepted = 0;
  for (const result of results) {
    if (result.status === 'fulfilled') {
      accepted += 1;
      const host = result.value.booking.hostUserId ?? 0;
      hosts.set(host, (hosts.get(host) ?? 0) + 1);
    } else {
      if (!(result.reason instanceof AppError)) throw result.reason;
      reasons.set(result.reason.message, (reasons.get(result.reason.message) ?? 0) + 1);
    }
  }
  return { accepted, reasons, hosts };
}

/** 50 distinct 15-minute starts on one day (from 06:00 UTC), so only the limit can refuse. */
const distinctStarts = (day: string) =>
  Array.from({ length: ATTEMPTS }, (_, i) => new Date(Date.parse(`${day}T06:00:00Z`) + i * 15 * MINUTE));

for (const backend of databaseBackends()) {
  const database = setUpTestDatabase(test, { backend });

  for (const limit of [1, 7]) {
    test.serial(
      `[${backend}] ${ATTEMPTS} simultaneous bookings against perDay ${limit} accept exactly ${limit}`,
      async (t) => {
        const knex = database.db.knex;
        const host = await makeUser(knex);
        await setAvailability(knex, host);
        await setLimits(knex, host.id, { perDay: limit });
        const eventType = await personalEventType(knex, host.id, { lengthInMinutes: 15 });
        const { accepted, reasons } = await race(database, eventType.id, distinctStarts('2026-06-10'));
        t.is(accepted, limit);
        t.is(reasons.get('booking_limit_reached'), ATTEMPTS - limit);
        const rows = (await knex('bookings')
          .where({ host_user_id: host.id, status: 'accepted' })
          .count('* as count')) as Array<{ count: number | string }>;
        t.is(Number(rows[0]?.count), limit);
      },
    );
  }

  test.serial(`[${backend}] week, month and year limits hold under concurrency too`, async (t) => {
    const knex = database.db.knex;
    const host = await makeUser(knex, { timeZone: 'America/New_York', weekStart: 'Sunday' });
    await setAvailability(knex, host);
    await setLimits(knex, host.id, { perWeek: 5, perMonth: 8, perYear: 9 });
    const eventType = await personalEventType(knex, host.id, { lengthInMinutes: 15 });
    // Spread over one Sunday-start week in New York (7-13 June 2026), many per day.
    const starts = Array.from(
      { length: ATTEMPTS },
      (_, i) =>
        new Date(Date.parse('2026-06-07T12:00:00Z') + (i % 7) * 86_400_000 + Math.floor(i / 7) * 15 * MINUTE),
    );
    const { accepted } = await race(database, eventType.id, starts);
    t.is(accepted, 5, 'week limit');
  });

  test.serial(
    `[${backend}] ${ATTEMPTS} simultaneous bookings of one slot without limits accept exactly one`,
    async (t) => {
      const knex = database.db.knex;
      const host = await makeUser(knex);
      await setAvailability(knex, host);
      const eventType = await personalEventType(knex, host.id, { lengthInMinutes: 30 });
      const starts = Array.from({ length: ATTEMPTS }, () => new Date('2026-06-10T09:00:00Z'));
      const { accepted, reasons } = await race(database, eventType.id, starts);
      t.is(accepted, 1);
      t.is(reasons.get('slot_unavailable'), ATTEMPTS - 1);
    },
  );

  test.serial(
    `[${backend}] a team event type: each host's limit and the event type's limit hold`,
    async (t) => {
      const knex = database.db.knex;
      const teamId = await insertTeam(knex);
      const hosts = [await makeUser(knex), await makeUser(knex), await makeUser(knex)];
      for (const [index, user] of hosts.entries()) {
        await setAvailability(knex, user);
        await addMembership(knex, user.id, { teamId });
        await setLimits(knex, user.id, { perDay: index + 2 }); // 2, 3 and 4
      }
      const open = await teamEventType(
        knex,
        teamId,
        hosts.map((h) => h.id),
        { lengthInMinutes: 15 },
      );
      const first = await race(database, open.id, distinctStarts('2026-06-10'));
      t.is(first.accepted, 2 + 3 + 4, 'every host filled to their own limit');
      t.deepEqual(
        hosts.map((h) => first.hosts.get(h.id)),
        [2, 3, 4],
      );

      // An event-type limit below the hosts' combined capacity: exactly that many.
      const capped = await teamEventType(
        knex,
        teamId,
        hosts.map((h) => h.id),
        { lengthInMinutes: 15, bookingLimits: { perDay: 4 } },
      );
      const second = await race(database, capped.id, distinctStarts('2026-06-11'));
      t.is(second.accepted, 4);
      t.is(second.reasons.get('booking_limit_reached'), ATTEMPTS - 4);
    },
  );
}
