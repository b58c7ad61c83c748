// Booking creation with 1,000 and with 1,000,000 existing bookings for the host (issue 6,
// "Cost independent of history"). Each size gets its own database (real Postgres when
// DATABASE_URL is set, else PGlite); the history is bulk-inserted with generate_series. The host
// has all four limits set, so every booking runs all four period counts under the host lock.
// Measured twice: end to end (POST /v2/bookings over HTTP, autocannon) and the booking service
// alone (sequential calls, no HTTP), which isolates the database work.
// Public bookings are limited to 120 a minute per IP address: the system trusts X-Forwarded-For
// (TRUST_PROXY, as behind the gateway) and each request comes from an address of its own, so the
// HTTP figures are bookings, not 429 answers (before 2026-11-24 they were mostly 429s).
import { createBooking } from '../../../services/api/src/scheduling/booking-service.ts';
import { startTestSystem, type TestSystem } from '../../support/system.ts';
import { insertOrganization } from '../../support/factories.ts';
import {
  addMembership,
  makeUser,
  personalEventType,
  setAvailability,
  setLimits,
} from '../../support/scheduling.ts';
import { type Measurement, measure, printRatio, printTable } from '../measure.ts';

const SIZES = [1_000, 1_000_000] as const;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HTTP_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const SERVICE_BOOKINGS = 1_000;
const WARM_UP_BOOKINGS = 100;
/** New bookings go here, after all of the history. */
const WINDOW_START = Date.parse('2033-01-03T00:00:00Z');
/** One booking every 6 hours: periods hold few bookings whatever the number of requests. */
const STRIDE_MS = 6 * 3_600_000;
/** Each stream of new bookings has its own stretch of time (5 years), so none of them overlap. */
const STREAM_MS = 5 * 365 * 86_400_000;

interface Setup {
  size: number;
  system: TestSystem;
  eventTypeId: number;
  /** Next free stream. */
  streams: number;
}

async function prepare(size: number): Promise<Setup> {
  const system = await startTestSystem({ TRUST_PROXY: 'true' });
  const knex = system.stores.db.knex;
  const host = await makeUser(knex, { timeZone: 'Europe/Berlin' });
  await addMembership(knex, host.id, { organizationId: await insertOrganization(knex) });
  await setAvailability(knex, host);
  await setLimits(knex, host.id, { perDay: 1_000, perWeek: 5_000, perMonth: 20_000, perYear: 200_000 });
  const eventType = await personalEventType(knex, host.id, { lengthInMinutes: 15 });
  const started = Date.now();
  // History: one booking every 10 minutes going back from a day before the window, one in ten cancelled.
  await knex.raw(
    `insert into bookings (uid, event_type_id, host_user_id, start_at, end_at, status,
                           attendee_name, attendee_email, attendee_time_zone, cancellation_reason)
     select 'history-' || g, ?, ?,
            ?::timestamptz - interval '1 day' - g * interval '10 minutes',
            ?::timestamptz - interval '1 day' - g * interval '10 minutes' + interval '15 minutes',
            case when g % 10 = 0 then 'cancelled' else 'accepted' end,
            'Attendee ' || g, 'attendee' || g || '@example.com', 'Europe/London',
            case when g % 10 = 0 then 'changed plans' end
       from generate_series(1, ?) as g`,
    [eventType.id, host.id, new Date(WINDOW_START).toISOString(), new Date(WINDOW_START).toISOString(), size],
  );
  await knex.raw('vacuum analyze bookings');
  console.log(
    `  ${size.toLocaleString('en')} bookings of history inserted in ${((Date.now() - started) / 1000).toFixed(1)} s (${system.stores.db.kind})`,
  );
  return { size, system, eventTypeId: eventType.id, streams: 0 };
}

const nextStream = (setup: Setup): number => WINDOW_START + setup.streams++ * STREAM_MS;

async function measureHttp(setup: Setup): Promise<Measurement> {
  const base = nextStream(setup);
  let next = 0;
  /** A private address (10.0.0.0/8) per request, each with a rate-limit window of its own. */
  const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const body = (i: number) =>
    JSON.stringify({
      eventTypeId: setup.eventTypeId,
      start: new Date(base + i * STRIDE_MS).toISOString(),
      attendee: { name: 'Bench', email: 'bench@example.com', timeZone: 'Europe/Berlin' },
    });
  return measure(`POST /v2/bookings, ${setup.size.toLocaleString('en')} existing`, {
    url: setup.system.url,
    connections: 10,
    duration: HTTP_SECONDS,
    requests: [
      {
        method: 'POST',
        path: '/v2/bookings',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          const i = next++;
          return {
            ...request,
            headers: { ...request.headers, 'x-forwarded-for': address(setup.streams * 1_000_000 + i) },
            body: body(i),
          };
        },
      },
    ],
  });
}

/**
 * The booking service alone, both sizes interleaved booking by booking (A, B, A, B, ...), so that
 * load from elsewhere on the machine hits both alike. Each size's latencies in milliseconds.
 */
async function measureService(setups: Setup[], count: number): Promise<Map<number, number[]>> {
  const attendee = { name: 'Bench', email: 'bench@example.com', timeZone: 'Europe/Berlin' };
  const bases = setups.map((setup) => nextStream(setup));
  const latencies = new Map<number, number[]>(setups.map((setup) => [setup.size, []]));
  for (let i = 0; i < count; i += 1) {
    for (const [index, setup] of setups.entries()) {
      const started = process.hrtime.bigint();
      await createBooking(setup.system.stores.db.knex, {
        eventTypeId: setup.eventTypeId,
        start: new Date(bases[index]! + i * STRIDE_MS),
        attendee,
      });
      latencies.get(setup.size)!.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return latencies;
}

const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

const median = (values: number[]): number => Math.round(percentile(values, 0.5));
const round2 = (value: number): number => Math.round(value * 100) / 100;

/**
 * Both databases are prepared first; then the two sizes are measured alternately (the service
 * booking by booking, HTTP in ROUNDS runs each with medians reported), so that load from elsewhere
 * on the machine hits both alike.
 */
export async function run(): Promise<void> {
  const setups: Setup[] = [];
  try {
    for (const size of SIZES) setups.push(await prepare(size));
    await measureService(setups, WARM_UP_BOOKINGS); // plans, caches, JIT
    const latencies = await measureService(setups, SERVICE_BOOKINGS);
    const http = new Map<number, Measurement[]>(SIZES.map((size) => [size, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) {
        http.get(setup.size)!.push(await measureHttp(setup));
      }
    }
    const httpRows: Measurement[] = SIZES.map((size) => {
      const runs = http.get(size)!;
      return {
        label: runs[0]!.label,
        requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      };
    });
    const serviceRows = SIZES.map((size) => {
      const list = latencies.get(size)!;
      const mean = list.reduce((sum, ms) => sum + ms, 0) / list.length;
      return {
        history: size.toLocaleString('en'),
        bookingsPerSecond: Math.round(1000 / mean),
        meanMs: round2(mean),
        p50Ms: round2(percentile(list, 0.5)),
        p99Ms: round2(percentile(list, 0.99)),
      };
    });
    console.log(
      `\nEnd to end (HTTP, 10 connections, one host; median of ${ROUNDS} runs of ${HTTP_SECONDS} s):`,
    );
    printTable(httpRows);
    console.log(`\nBooking service alone (${SERVICE_BOOKINGS} sequential bookings per size, interleaved):`);
    console.table(serviceRows);
    const goal = '>= 83.3%, i.e. at most 20% more cost per booking';
    printRatio(
      'HTTP throughput with 1,000,000 existing bookings, as a share of 1,000',
      httpRows[1]!.requestsPerSecond,
      httpRows[0]!.requestsPerSecond,
      goal,
    );
    printRatio(
      'Service throughput with 1,000,000 existing bookings, as a share of 1,000',
      serviceRows[1]!.bookingsPerSecond,
      serviceRows[0]!.bookingsPerSecond,
      goal,
    );
    if (httpRows.some((row) => row.non2xx > 0 || row.errors > 0)) {
      console.log('note: some requests were not 201 (see non2xx / errors above)');
    }
  } finally {
    for (const setup of setups) await setup.system.close();
  }
}
