// Slots for a week (GET /v2/slots's computation) for a host with one connected CalDAV calendar of
// 200 events (a real radicale on loopback), its busy times cached and uncached, against a host
// without any calendar (issue 20: "slots with a connected calendar should cost little more than
// without when cached"). The slot computation is called directly (no HTTP), interleaved round by
// round so that load from elsewhere on the machine hits every variant alike. Figures only.
import { openCalendars } from '@sched/runtime/runtime';
import { findEventTypeById } from '@sched/db/queries/event-types';
import { createLogger } from '@sched/kit/logger';
import { DateTime } from 'luxon';
import { computeSlots } from '../../../services/api/src/scheduling/slots.ts';
import { insertUser } from '../../support/factories.ts';
import { startRadicale } from '../../support/radicale.ts';
import { personalEventType } from '../../support/scheduling.ts';
import { startTestSystem } from '../../support/system.ts';
import { printRatio } from '../measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const UNCACHED_EVERY = 4;
const EVENTS = 200;
const ZONE = 'Europe/Berlin';
const account = { username: 'bench', password: 'bench-password-0123456789' };

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
};
/** Wall time, and this process's CPU time per call (less sensitive to load from elsewhere). */
const stats = (label: string, runs: Array<{ ms: number; cpuMs: number }>) => {
  const ms = runs.map((run) => run.ms);
  const cpu = runs.map((run) => run.cpuMs);
  return {
    label,
    runs: runs.length,
    p50Ms: quantile(ms, 0.5),
    p95Ms: quantile(ms, 0.95),
    cpuP50Ms: quantile(cpu, 0.5),
    cpuMeanMs: +(cpu.reduce((sum, value) => sum + value, 0) / cpu.length).toFixed(2),
  };
};

export async function run(): Promise<void> {
  const radicale = await startRadicale([account]);
  const system = await startTestSystem({ OUTBOUND_PRIVATE_NETWORKS: 'allow', LOG_LEVEL: 'silent' });
  try {
    const knex = system.stores.db.knex;
    const monday = DateTime.now().setZone(ZONE).plus({ weeks: 2 }).startOf('week');
    const calendarPath = await radicale.makeCalendar(account, 'work', 'Work');
    // 200 events of 30 minutes spread over the week's working hours (some overlapping).
    for (let i = 0; i < EVENTS; i++) {
      const start = monday.plus({ days: i % 5, hours: 8 + ((i * 7) % 10), minutes: (i % 2) * 30 });
      const stamp = (d: DateTime) => d.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'");
      await radicale.putEvent(
        account,
        calendarPath,
        `event-${i}`,
        [
          'BEGIN:VCALENDAR',
          'VERSION:2.0',
          'PRODID:-//bench//EN',
          'BEGIN:VEVENT',
          `UID:event-${i}`,
          'DTSTAMP:20300101T000000Z',
          `DTSTART:${stamp(start)}`,
          `DTEND:${stamp(start.plus({ minutes: 30 }))}`,
          `SUMMARY:Event ${i}`,
          'END:VEVENT',
          'END:VCALENDAR',
          '',
        ].join('\r\n'),
      );
    }
    const withCalendar = await insertUser(knex, { timeZone: ZONE });
    const without = await insertUser(knex, { timeZone: ZONE });
    const runtimeConfig = { ...system.config, cookieKeys: system.config.cookieKeys ?? [] };
    const logger = createLogger({ level: 'silent' });
    const service = openCalendars(runtimeConfig, logger, system.stores);
    await service.connectCalDav(withCalendar.id, {
      serverUrl: radicale.url,
      username: account.username,
      password: account.password,
    });
    const typeWith = (await findEventTypeById(knex, (await personalEventType(knex, withCalendar.id)).id))!;
    const typeWithout = (await findEventTypeById(knex, (await personalEventType(knex, without.id)).id))!;
    const range = { from: monday.toMillis(), to: monday.plus({ days: 7 }).toMillis() - 1 };

    const time = async (fn: () => Promise<unknown>) => {
      const started = process.hrtime.bigint();
      const cpuBefore = process.cpuUsage();
      await fn();
      const cpu = process.cpuUsage(cpuBefore);
      return { ms: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000 };
    };
    type Run = { ms: number; cpuMs: number };
    const none: Run[] = [];
    const cached: Run[] = [];
    const uncached: Run[] = [];
    let offered = 0;
    // Warm-up (JIT, connection pool, the cache's first entry).
    for (let i = 0; i < 10; i++) {
      await computeSlots(knex, typeWithout, { ...range, now: Date.now() });
      offered = (await computeSlots(knex, typeWith, { ...range, now: Date.now() }, service.busyTimes)).length;
    }
    for (let i = 0; i < ROUNDS; i++) {
      none.push(await time(() => computeSlots(knex, typeWithout, { ...range, now: Date.now() })));
      cached.push(
        await time(() => computeSlots(knex, typeWith, { ...range, now: Date.now() }, service.busyTimes)),
      );
      if (i % UNCACHED_EVERY === 0) {
        // A fresh service has an empty cache: every read goes to the CalDAV server.
        const fresh = openCalendars(runtimeConfig, logger, system.stores);
        uncached.push(
          await time(() => computeSlots(knex, typeWith, { ...range, now: Date.now() }, fresh.busyTimes)),
        );
      }
    }
    console.log(
      `  ${EVENTS} events in the connected calendar; ${offered} of the week's slots left (${system.stores.db.kind})`,
    );
    const rows = [
      stats('no calendar', none),
      stats('CalDAV, cached', cached),
      stats('CalDAV, uncached', uncached),
    ];
    console.table(rows);
    printRatio('cached p50 vs no calendar', rows[1]!.p50Ms, rows[0]!.p50Ms, 'little more than 100%');
    printRatio('uncached p50 vs no calendar', rows[2]!.p50Ms, rows[0]!.p50Ms);
    printRatio(
      'cached CPU mean vs no calendar',
      rows[1]!.cpuMeanMs,
      rows[0]!.cpuMeanMs,
      'little more than 100%',
    );
  } finally {
    await system.close();
    await radicale.close();
  }
}
