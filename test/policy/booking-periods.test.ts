import {
  BOOKING_INTERVALS,
  type BookingInterval,
  type BookingLimitSet,
  distinctPeriods,
  isValidLimit,
  isValidTimeZone,
  limitedIntervals,
  MAX_LIMIT,
  mergeLimits,
  NO_LIMITS,
  type PeriodFrame,
  periodOf,
  periodsOf,
  reachedLimit,
  timeZoneSpelling,
  WEEKDAY_NAMES,
  type WeekdayName,
} from '@sched/policy/booking-periods';
import test from 'ava';
import fc from 'fast-check';
import { DateTime } from 'luxon';

const HOUR = 3_600_000;
const frame = (timeZone: string, weekStart: WeekdayName = 'Monday'): PeriodFrame => ({ timeZone, weekStart });
const at = (iso: string) => new Date(iso);
/** A local wall-clock time in `zone` as an instant. */
const local = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toJSDate();
const span = (interval: BookingInterval, instant: Date, f: PeriodFrame) => {
  const p = periodOf(instant, interval, f);
  return {
    start: p.start.toISOString(),
    end: p.end.toISOString(),
    hours: (p.end.getTime() - p.start.getTime()) / HOUR,
  };
};

// ---- each interval alone, UTC -------------------------------------------------------------

test('day, week, month and year periods in UTC', (t) => {
  const instant = at('2026-05-14T10:30:00Z'); // a Thursday
  const utc = frame('UTC');
  t.deepEqual(span('day', instant, utc), {
    start: '2026-05-14T00:00:00.000Z',
    end: '2026-05-15T00:00:00.000Z',
    hours: 24,
  });
  t.deepEqual(span('week', instant, utc), {
    start: '2026-05-11T00:00:00.000Z',
    end: '2026-05-18T00:00:00.000Z',
    hours: 168,
  });
  t.deepEqual(span('month', instant, utc), {
    start: '2026-05-01T00:00:00.000Z',
    end: '2026-06-01T00:00:00.000Z',
    hours: 31 * 24,
  });
  t.deepEqual(span('year', instant, utc), {
    start: '2026-01-01T00:00:00.000Z',
    end: '2027-01-01T00:00:00.000Z',
    hours: 365 * 24,
  });
});

test('a period is half-open: its start belongs to it, its end to the next one', (t) => {
  const utc = frame('UTC');
  for (const interval of BOOKING_INTERVALS) {
    const p = periodOf(at('2026-05-14T10:30:00Z'), interval, utc);
    t.is(periodOf(p.start, interval, utc).key, p.key);
    t.is(periodOf(p.end.getTime() - 1, interval, utc).key, p.key);
    t.not(periodOf(p.end, interval, utc).key, p.key);
    t.is(periodOf(p.end, interval, utc).start.getTime(), p.end.getTime());
  }
});

test('periodsOf returns the four periods in order, or only the intervals asked for', (t) => {
  const all = periodsOf(at('2026-05-14T10:30:00Z'), frame('UTC'));
  t.deepEqual(
    all.map((p) => p.interval),
    ['day', 'week', 'month', 'year'],
  );
  t.deepEqual(
    periodsOf(at('2026-05-14T10:30:00Z'), frame('UTC'), ['month']).map((p) => p.interval),
    ['month'],
  );
  t.is(
    periodOf(1_778_754_600_000, 'day', frame('UTC')).key,
    periodOf(new Date(1_778_754_600_000), 'day', frame('UTC')).key,
  );
});

// ---- week boundaries ------------------------------------------------------------------------

test('week boundary for a Monday-start user: Sunday 23:59:59 and Monday 00:00 are in different weeks', (t) => {
  const zone = 'Europe/Berlin';
  const f = frame(zone, 'Monday');
  const sunday = periodOf(local('2026-05-17T23:59:59.999', zone), 'week', f);
  const monday = periodOf(local('2026-05-18T00:00:00', zone), 'week', f);
  t.deepEqual(sunday.start, local('2026-05-11T00:00', zone));
  t.deepEqual(sunday.end, local('2026-05-18T00:00', zone));
  t.deepEqual(monday.start, local('2026-05-18T00:00', zone));
  t.deepEqual(monday.end, local('2026-05-25T00:00', zone));
});

test('week boundary for a Sunday-start user: Saturday 23:59:59 and Sunday 00:00 are in different weeks', (t) => {
  const zone = 'America/New_York';
  const f = frame(zone, 'Sunday');
  const saturday = periodOf(local('2026-05-16T23:59:59.999', zone), 'week', f);
  const sunday = periodOf(local('2026-05-17T00:00:00', zone), 'week', f);
  t.deepEqual(saturday.start, local('2026-05-10T00:00', zone));
  t.deepEqual(saturday.end, local('2026-05-17T00:00', zone));
  t.deepEqual(sunday.start, local('2026-05-17T00:00', zone));
  t.deepEqual(sunday.end, local('2026-05-24T00:00', zone));
  // The same Sunday for a Monday-start user is the last day of the week that began on the 11th.
  t.deepEqual(
    periodOf(local('2026-05-17T00:00:00', zone), 'week', frame(zone, 'Monday')).start,
    local('2026-05-11T00:00', zone),
  );
});

test('every weekStart: the week starts on that weekday at local midnight and contains the instant', (t) => {
  const zone = 'Asia/Kolkata';
  const instant = local('2026-05-14T15:00', zone); // Thursday
  for (const [index, weekStart] of WEEKDAY_NAMES.entries()) {
    const p = periodOf(instant, 'week', frame(zone, weekStart));
    const start = DateTime.fromJSDate(p.start, { zone });
    t.is(start.weekday, index + 1, weekStart);
    t.is(start.toFormat('HH:mm:ss.SSS'), '00:00:00.000');
    t.true(p.start <= instant && instant < p.end, weekStart);
    t.is(p.end.getTime() - p.start.getTime(), 168 * HOUR);
  }
});

test('a week that spans the new year belongs to neither year alone', (t) => {
  const f = frame('UTC', 'Monday');
  const p = periodOf(at('2027-01-01T12:00:00Z'), 'week', f); // Friday
  t.is(p.start.toISOString(), '2026-12-28T00:00:00.000Z');
  t.is(p.end.toISOString(), '2027-01-04T00:00:00.000Z');
});

// ---- the host's zone, not UTC -----------------------------------------------------------------

test("just before midnight in the host's zone is still that local day, whatever the UTC date", (t) => {
  // 23:59:59 in Los Angeles on 14 May is already 15 May in UTC.
  const zone = 'America/Los_Angeles';
  const lateEvening = local('2026-05-14T23:59:59', zone);
  t.is(lateEvening.toISOString(), '2026-05-15T06:59:59.000Z');
  const day = periodOf(lateEvening, 'day', frame(zone));
  t.deepEqual(day.start, local('2026-05-14T00:00', zone));
  t.deepEqual(day.end, local('2026-05-15T00:00', zone));
  t.not(day.key, periodOf(lateEvening, 'day', frame('UTC')).key);
  // One second later is the next local day.
  t.deepEqual(
    periodOf(lateEvening.getTime() + 1000, 'day', frame(zone)).start,
    local('2026-05-15T00:00', zone),
  );
});

test("just before midnight in a zone ahead of UTC: the local day ends before UTC's does", (t) => {
  const zone = 'Asia/Tokyo';
  const beforeMidnight = at('2026-05-14T14:59:59.999Z'); // 23:59:59.999 JST
  const atMidnight = at('2026-05-14T15:00:00Z'); // 00:00 JST on the 15th
  t.is(periodOf(beforeMidnight, 'day', frame(zone)).start.toISOString(), '2026-05-13T15:00:00.000Z');
  t.is(periodOf(atMidnight, 'day', frame(zone)).start.toISOString(), '2026-05-14T15:00:00.000Z');
  // In UTC both are the same day.
  t.is(periodOf(beforeMidnight, 'day', frame('UTC')).key, periodOf(atMidnight, 'day', frame('UTC')).key);
});

test('month and year boundaries are local: 31 December 23:59 in New York is already 1 January in UTC', (t) => {
  const zone = 'America/New_York';
  const instant = local('2026-12-31T23:59:59', zone);
  t.is(instant.toISOString(), '2027-01-01T04:59:59.000Z');
  const f = frame(zone);
  t.deepEqual(periodOf(instant, 'month', f).start, local('2026-12-01T00:00', zone));
  t.deepEqual(periodOf(instant, 'year', f).start, local('2026-01-01T00:00', zone));
  t.deepEqual(periodOf(instant, 'year', f).end, local('2027-01-01T00:00', zone));
  t.deepEqual(periodOf(instant.getTime() + 1000, 'year', f).start, local('2027-01-01T00:00', zone));
  t.is(periodOf(instant, 'year', frame('UTC')).start.toISOString(), '2027-01-01T00:00:00.000Z');
});

test('odd offsets (Kathmandu +05:45, Chatham +12:45/+13:45) cut days at local midnight', (t) => {
  for (const zone of ['Asia/Kathmandu', 'Pacific/Chatham', 'Australia/Lord_Howe']) {
    const p = periodOf(local('2026-07-10T00:10', zone), 'day', frame(zone));
    t.deepEqual(p.start, local('2026-07-10T00:00', zone), zone);
    t.deepEqual(p.end, local('2026-07-11T00:00', zone), zone);
  }
});

// ---- DST ------------------------------------------------------------------------------------

test('America/New_York spring forward (8 March 2026): the day has 23 hours and 01:59 EST / 03:00 EDT are the same day', (t) => {
  const zone = 'America/New_York';
  const f = frame(zone);
  t.deepEqual(span('day', at('2026-03-08T12:00:00Z'), f), {
    start: '2026-03-08T05:00:00.000Z',
    end: '2026-03-09T04:00:00.000Z',
    hours: 23,
  });
  const before = at('2026-03-08T06:59:59Z'); // 01:59:59 EST
  const after = at('2026-03-08T07:00:00Z'); // 03:00:00 EDT
  t.is(periodOf(before, 'day', f).key, periodOf(after, 'day', f).key);
  // The days around it keep 24 hours and meet it exactly.
  t.is(span('day', at('2026-03-07T12:00:00Z'), f).end, '2026-03-08T05:00:00.000Z');
  t.is(span('day', at('2026-03-09T12:00:00Z'), f).hours, 24);
  // The Monday-start week that holds it is one hour short; the Sunday-start week starting that day too.
  t.is(span('week', at('2026-03-08T12:00:00Z'), f).hours, 167);
  t.deepEqual(span('week', at('2026-03-08T12:00:00Z'), frame(zone, 'Sunday')), {
    start: '2026-03-08T05:00:00.000Z',
    end: '2026-03-15T04:00:00.000Z',
    hours: 167,
  });
  t.is(span('month', at('2026-03-08T12:00:00Z'), f).hours, 31 * 24 - 1);
});

test('America/New_York fall back (1 November 2026): the day has 25 hours; both 01:30s are the same day', (t) => {
  const zone = 'America/New_York';
  const f = frame(zone);
  t.deepEqual(span('day', at('2026-11-01T12:00:00Z'), f), {
    start: '2026-11-01T04:00:00.000Z',
    end: '2026-11-02T05:00:00.000Z',
    hours: 25,
  });
  const firstOneThirty = at('2026-11-01T05:30:00Z'); // 01:30 EDT
  const secondOneThirty = at('2026-11-01T06:30:00Z'); // 01:30 EST
  t.is(periodOf(firstOneThirty, 'day', f).key, periodOf(secondOneThirty, 'day', f).key);
  // 23:59 EST that evening is still 1 November locally (04:59 UTC on the 2nd).
  t.is(periodOf(at('2026-11-02T04:59:59Z'), 'day', f).key, periodOf(secondOneThirty, 'day', f).key);
  t.not(periodOf(at('2026-11-02T05:00:00Z'), 'day', f).key, periodOf(secondOneThirty, 'day', f).key);
  t.is(span('week', at('2026-11-01T12:00:00Z'), frame(zone, 'Sunday')).hours, 169);
  t.is(span('week', at('2026-11-01T12:00:00Z'), frame(zone, 'Monday')).hours, 169);
  t.is(span('month', at('2026-11-15T12:00:00Z'), f).hours, 30 * 24 + 1);
});

test('Europe/Berlin spring forward (29 March 2026) and fall back (25 October 2026)', (t) => {
  const zone = 'Europe/Berlin';
  const f = frame(zone);
  t.deepEqual(span('day', at('2026-03-29T12:00:00Z'), f), {
    start: '2026-03-28T23:00:00.000Z',
    end: '2026-03-29T22:00:00.000Z',
    hours: 23,
  });
  t.is(
    periodOf(at('2026-03-29T00:59:59Z'), 'day', f).key,
    periodOf(at('2026-03-29T01:00:00Z'), 'day', f).key,
  );
  t.deepEqual(span('day', at('2026-10-25T12:00:00Z'), f), {
    start: '2026-10-24T22:00:00.000Z',
    end: '2026-10-25T23:00:00.000Z',
    hours: 25,
  });
  // Monday-start weeks end on the DST Sundays: one hour short in March, one long in October.
  t.deepEqual(span('week', at('2026-03-29T12:00:00Z'), f), {
    start: '2026-03-22T23:00:00.000Z',
    end: '2026-03-29T22:00:00.000Z',
    hours: 167,
  });
  t.is(span('week', at('2026-10-25T12:00:00Z'), f).hours, 169);
  t.is(span('week', at('2026-03-30T12:00:00Z'), f).start, '2026-03-29T22:00:00.000Z');
  // The year has exactly 365 days of 24 hours: the lost and the gained hour cancel out.
  t.is(span('year', at('2026-06-01T12:00:00Z'), f).hours, 365 * 24);
  t.is(span('month', at('2026-03-10T12:00:00Z'), f).hours, 31 * 24 - 1);
  t.is(span('month', at('2026-10-10T12:00:00Z'), f).hours, 31 * 24 + 1);
});

test('a zone whose midnight does not exist (America/Santiago, 6 September 2026) starts the day at 01:00', (t) => {
  const zone = 'America/Santiago';
  const f = frame(zone);
  const day = periodOf(at('2026-09-06T12:00:00Z'), 'day', f);
  t.is(day.start.toISOString(), '2026-09-06T04:00:00.000Z'); // 01:00 -03, the first instant of the day
  t.is(periodOf(at('2026-09-05T12:00:00Z'), 'day', f).end.toISOString(), '2026-09-06T04:00:00.000Z');
  t.is(day.end.getTime() - day.start.getTime(), 23 * HOUR);
  // A Sunday-start week beginning that day also begins at 01:00.
  t.is(
    periodOf(at('2026-09-10T12:00:00Z'), 'week', frame(zone, 'Sunday')).start.toISOString(),
    '2026-09-06T04:00:00.000Z',
  );
});

test("a midnight that happens twice (St. John's set clocks back at 00:01 until 2011) counts at its later occurrence", (t) => {
  const zone = 'America/St_Johns';
  const f = frame(zone);
  // 28 October 2001: 00:01 NDT (02:31 UTC) became 23:01 NST on the 27th, so 00:00 on the 28th
  // happened at 02:30 UTC and again at 03:30 UTC.
  const saturday = periodOf(at('2001-10-27T12:00:00Z'), 'day', f);
  t.is(saturday.start.toISOString(), '2001-10-27T02:30:00.000Z');
  t.is(saturday.end.toISOString(), '2001-10-28T03:30:00.000Z');
  for (const instant of ['2001-10-28T02:30:00Z', '2001-10-28T02:31:00Z', '2001-10-28T03:29:59Z']) {
    t.is(periodOf(at(instant), 'day', f).key, saturday.key, instant);
  }
  t.is(periodOf(at('2001-10-28T03:30:00Z'), 'day', f).start.toISOString(), '2001-10-28T03:30:00.000Z');
});

// ---- months and leap years ------------------------------------------------------------------

test('month lengths: 28, 29, 30 and 31 days, February in leap and common years', (t) => {
  const utc = frame('UTC');
  const days = (iso: string) => span('month', at(iso), utc).hours / 24;
  t.is(days('2026-02-10T00:00:00Z'), 28);
  t.is(days('2028-02-10T00:00:00Z'), 29); // leap year
  t.is(days('2100-02-10T00:00:00Z'), 28); // divisible by 100: not a leap year
  t.is(days('2000-02-10T00:00:00Z'), 29); // divisible by 400: leap year
  t.is(days('2026-04-10T00:00:00Z'), 30);
  t.is(days('2026-01-10T00:00:00Z'), 31);
  t.is(span('month', at('2028-02-29T23:59:59Z'), utc).end, '2028-03-01T00:00:00.000Z');
  t.is(span('month', at('2028-03-01T00:00:00Z'), utc).start, '2028-03-01T00:00:00.000Z');
});

test('29 February is a day of its own and leap years have 366 days', (t) => {
  const utc = frame('UTC');
  t.deepEqual(span('day', at('2028-02-29T10:00:00Z'), utc), {
    start: '2028-02-29T00:00:00.000Z',
    end: '2028-03-01T00:00:00.000Z',
    hours: 24,
  });
  t.is(span('year', at('2028-07-01T00:00:00Z'), utc).hours, 366 * 24);
  t.is(span('year', at('2027-07-01T00:00:00Z'), utc).hours, 365 * 24);
  const zone = 'Pacific/Auckland';
  t.deepEqual(
    periodOf(local('2028-02-29T23:30', zone), 'day', frame(zone)).start,
    local('2028-02-29T00:00', zone),
  );
  t.deepEqual(
    periodOf(local('2028-02-29T23:30', zone), 'month', frame(zone)).end,
    local('2028-03-01T00:00', zone),
  );
});

test('the last millisecond of a month or year belongs to it; the next one starts the next', (t) => {
  const zone = 'Europe/Berlin';
  const f = frame(zone);
  const endOfJanuary = local('2026-01-31T23:59:59.999', zone);
  t.deepEqual(periodOf(endOfJanuary, 'month', f).start, local('2026-01-01T00:00', zone));
  t.deepEqual(periodOf(endOfJanuary.getTime() + 1, 'month', f).start, local('2026-02-01T00:00', zone));
  const endOfYear = local('2026-12-31T23:59:59.999', zone);
  t.deepEqual(periodOf(endOfYear, 'year', f).start, local('2026-01-01T00:00', zone));
  t.deepEqual(periodOf(endOfYear.getTime() + 1, 'year', f).start, local('2027-01-01T00:00', zone));
});

test('a skipped day (Apia, 30 December 2011) still counts: a week starting on it is six days and the next starts on time', (t) => {
  const zone = 'Pacific/Apia';
  const f = frame(zone, 'Friday');
  // 29 December ended at 23:59:59 -10:00; the next instant was 31 December 00:00 +14:00.
  const jump = Date.UTC(2011, 11, 30, 10);
  const week = periodOf(jump, 'week', f);
  t.is(week.start.getTime(), jump);
  t.is(week.end.toISOString(), local('2012-01-06T00:00', zone).toISOString());
  t.is((week.end.getTime() - week.start.getTime()) / HOUR, 6 * 24);
  t.is(periodOf(week.end, 'week', f).start.getTime(), week.end.getTime());
  t.is(periodOf(jump - 1, 'week', f).end.getTime(), jump);
  // A Saturday week is unaffected: it starts on 31 December, the first instant after the jump.
  t.is(periodOf(jump, 'week', frame(zone, 'Saturday')).start.getTime(), jump);
});

// ---- properties over many zones and instants ------------------------------------------------

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'America/St_Johns',
];

test('for any instant, zone, weekStart and interval: the period contains it, starts at a local day start and tiles time', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }),
      fc.constantFrom(...ZONES),
      fc.constantFrom(...WEEKDAY_NAMES),
      fc.constantFrom(...BOOKING_INTERVALS),
      (ms, zone, weekStart, interval) => {
        const f = frame(zone, weekStart);
        const p = periodOf(ms, interval, f);
        const start = p.start.getTime();
        const end = p.end.getTime();
        if (!(start <= ms && ms < end)) return false;
        // Tiling: the next period starts exactly where this one ends, the previous ends where it starts.
        if (periodOf(end, interval, f).start.getTime() !== end) return false;
        if (periodOf(start - 1, interval, f).end.getTime() !== start) return false;
        // Starts are the first instant of a local day (the day before starts earlier).
        const localStart = DateTime.fromMillis(start, { zone });
        const dayBefore = DateTime.fromMillis(start - 1, { zone });
        if (dayBefore.toISODate() === localStart.toISODate()) return false;
        // The calendar day the period is for: the day after the one before its start. It differs
        // from the start's own date only after a skipped day (Apia, 30 December 2011).
        const firstDay = DateTime.utc(dayBefore.year, dayBefore.month, dayBefore.day).plus({ days: 1 });
        if (interval === 'week' && firstDay.weekday !== WEEKDAY_NAMES.indexOf(weekStart) + 1) return false;
        if (interval === 'month' && firstDay.day !== 1) return false;
        if (interval === 'year' && (firstDay.day !== 1 || firstDay.month !== 1)) return false;
        // Length: days are 23 to 25 hours (Lord Howe: 23.5 to 24.5; Apia skipped a whole day in 2011).
        const hours = (end - start) / HOUR;
        const bounds: Record<BookingInterval, [number, number]> = {
          day: [22.9, 25.1],
          week: [6 * 24 - 0.1, 7 * 24 + 1.1],
          month: [27 * 24 - 0.1, 31 * 24 + 1.1],
          year: [364 * 24 - 0.1, 366 * 24 + 1.1],
        };
        const [min, max] = bounds[interval];
        return hours >= min && hours <= max;
      },
    ),
    { numRuns: 3000 },
  );
  t.pass();
});

// ---- limits ---------------------------------------------------------------------------------

const limits = (partial: Partial<BookingLimitSet>): BookingLimitSet => ({ ...NO_LIMITS, ...partial });

test('a count equal to the limit refuses; one below accepts', (t) => {
  for (const interval of BOOKING_INTERVALS) {
    const field = { day: 'perDay', week: 'perWeek', month: 'perMonth', year: 'perYear' }[
      interval
    ] as keyof BookingLimitSet;
    const set = limits({ [field]: 3 });
    t.is(reachedLimit(set, { [interval]: 2 }), null, interval);
    t.deepEqual(reachedLimit(set, { [interval]: 3 }), { interval, limit: 3, count: 3 }, interval);
    t.deepEqual(reachedLimit(set, { [interval]: 4 }), { interval, limit: 3, count: 4 }, interval);
  }
});

test('no limits never refuse; a missing count is zero', (t) => {
  t.is(reachedLimit(NO_LIMITS, { day: 1_000_000, week: 1_000_000 }), null);
  t.is(reachedLimit(limits({ perDay: 1 }), {}), null);
});

test('several limits: whichever is reached first refuses (the stricter one at that moment)', (t) => {
  const set = limits({ perDay: 2, perWeek: 3, perMonth: 10 });
  t.is(reachedLimit(set, { day: 1, week: 2, month: 2 }), null);
  t.like(reachedLimit(set, { day: 2, week: 2, month: 2 }), { interval: 'day' });
  // Under the day limit today but the week is full: the week limit is the stricter one now.
  t.like(reachedLimit(set, { day: 0, week: 3, month: 3 }), { interval: 'week' });
  t.like(reachedLimit(set, { day: 0, week: 0, month: 10 }), { interval: 'month' });
  // A day limit above the week limit can never be reached before the week's.
  const loose = limits({ perDay: 5, perWeek: 2 });
  t.like(reachedLimit(loose, { day: 2, week: 2 }), { interval: 'week' });
});

test('limitedIntervals lists only set limits, in day-week-month-year order', (t) => {
  t.deepEqual(limitedIntervals(NO_LIMITS), []);
  t.deepEqual(limitedIntervals(limits({ perYear: 9, perDay: 1 })), [
    { interval: 'day', limit: 1 },
    { interval: 'year', limit: 9 },
  ]);
});

test('merge semantics: omitted keeps, null removes, a number sets', (t) => {
  const current = limits({ perDay: 2, perWeek: 5, perMonth: 20 });
  t.deepEqual(mergeLimits(current, {}), current);
  t.deepEqual(mergeLimits(current, { perDay: 3 }), { perDay: 3, perWeek: 5, perMonth: 20, perYear: null });
  t.deepEqual(mergeLimits(current, { perWeek: null }), {
    perDay: 2,
    perWeek: null,
    perMonth: 20,
    perYear: null,
  });
  t.deepEqual(mergeLimits(current, { perYear: 100, perMonth: undefined }), {
    perDay: 2,
    perWeek: 5,
    perMonth: 20,
    perYear: 100,
  });
  t.deepEqual(current, limits({ perDay: 2, perWeek: 5, perMonth: 20 }), 'the input is not mutated');
});

test('valid limits are integers from 1 to 2^31-1, or null', (t) => {
  for (const ok of [null, 1, 2, 1000, MAX_LIMIT]) t.true(isValidLimit(ok), String(ok));
  for (const bad of [0, -1, 1.5, '3', Number.NaN, Number.POSITIVE_INFINITY, MAX_LIMIT + 1, undefined, {}]) {
    t.false(isValidLimit(bad), String(bad));
  }
});

test('time zones: IANA names are valid, others are not (and an unknown stored zone falls back to UTC)', (t) => {
  t.true(isValidTimeZone('Europe/Berlin'));
  t.true(isValidTimeZone('UTC'));
  t.false(isValidTimeZone('Mars/Olympus'));
  t.false(isValidTimeZone(''));
  t.is(
    periodOf(at('2026-05-14T10:00:00Z'), 'day', frame('Mars/Olympus')).start.toISOString(),
    '2026-05-14T00:00:00.000Z',
  );
});

test('time zone spelling: the IANA spelling whatever the case; aliases and unknown names stay as given', (t) => {
  t.is(timeZoneSpelling('europe/paris'), 'Europe/Paris');
  t.is(timeZoneSpelling('AMERICA/NEW_YORK'), 'America/New_York');
  t.is(timeZoneSpelling('utc'), 'UTC');
  t.is(timeZoneSpelling('Europe/Paris'), 'Europe/Paris');
  // Not resolved to another name (Intl would give Asia/Calcutta).
  t.is(timeZoneSpelling('Asia/Kolkata'), 'Asia/Kolkata');
  t.is(timeZoneSpelling('US/Eastern'), 'US/Eastern');
  t.is(timeZoneSpelling('Not/AZone'), 'Not/AZone');
  for (const zone of Intl.supportedValuesOf('timeZone')) t.is(timeZoneSpelling(zone.toLowerCase()), zone);
});

test('distinctPeriods collects each touched period once, sorted', (t) => {
  const zone = 'Europe/Berlin';
  const f = frame(zone);
  const instants = [
    local('2026-03-28T10:00', zone),
    local('2026-03-28T11:00', zone),
    local('2026-03-29T10:00', zone),
    local('2026-03-30T10:00', zone),
    local('2026-03-28T12:00', zone),
  ].map((d) => d.getTime());
  const days = distinctPeriods(instants, 'day', f);
  t.deepEqual(
    days.map((p) => p.start),
    [local('2026-03-28T00:00', zone), local('2026-03-29T00:00', zone), local('2026-03-30T00:00', zone)],
  );
  const weeks = distinctPeriods(instants, 'week', f);
  t.is(weeks.length, 2);
  t.is(distinctPeriods(instants, 'month', f).length, 1);
  t.deepEqual(distinctPeriods([], 'year', f), []);
});
