// Booking-limit periods (docs/scheduling.md "Enforcement"): day, week, month and year in the host's
// time zone, weeks starting on the host's weekStart, computed with Luxon so DST days are 23 or 25
// hours long and midnights that do not exist move to the first instant of the day. Pure: no I/O, no
// clock.
import { DateTime, IANAZone } from 'luxon';

export const BOOKING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type BookingInterval = (typeof BOOKING_INTERVALS)[number];

/** The API field of each interval: perDay, perWeek, perMonth, perYear. */
export const LIMIT_FIELDS = {
  day: 'perDay',
  week: 'perWeek',
  month: 'perMonth',
  year: 'perYear',
} as const satisfies Record<BookingInterval, string>;
export type LimitField = (typeof LIMIT_FIELDS)[BookingInterval];

/** A set of booking limits; null means "no limit for this interval". All four keys always present. */
export type BookingLimitSet = { [K in LimitField]: number | null };

export const NO_LIMITS: BookingLimitSet = Object.freeze({
  perDay: null,
  perWeek: null,
  perMonth: null,
  perYear: null,
});

/** Largest limit the API accepts (the columns are 32-bit integers). */
export const MAX_LIMIT = 2_147_483_647;

/** Weekday names in ISO order: index + 1 is the ISO weekday (1 = Monday ... 7 = Sunday). */
export const WEEKDAY_NAMES = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const;
export type WeekdayName = (typeof WEEKDAY_NAMES)[number];

/** ISO weekday (1 = Monday ... 7 = Sunday) of a weekday name. */
export const isoWeekday = (name: WeekdayName): number => WEEKDAY_NAMES.indexOf(name) + 1;

/** Where periods are cut: the host's IANA time zone and first day of the week. */
export interface PeriodFrame {
  timeZone: string;
  weekStart: WeekdayName;
}

/** A UTC frame with Monday weeks (event-type limits of team event types; see docs/scheduling.md). */
export const UTC_FRAME: PeriodFrame = Object.freeze({ timeZone: 'UTC', weekStart: 'Monday' });

/** One period: [start, end) as instants. `key` identifies it (interval + start instant). */
export interface Period {
  interval: BookingInterval;
  start: Date;
  end: Date;
  key: string;
}

export const isValidTimeZone = (zone: string): boolean => IANAZone.isValidZone(zone);

/** Lowercase name -> IANA spelling of every zone the runtime lists, plus UTC (which it leaves out). */
let zoneSpellings: ReadonlyMap<string, string> | undefined;
const zoneSpellingsByLowercase = (): ReadonlyMap<string, string> => {
  // Built at first use, once: ~400 names, not worth paying for at start-up.
  zoneSpellings ??= new Map(
    ['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]),
  );
  return zoneSpellings;
};

/**
 * The IANA spelling of a zone name typed in another case (`europe/paris` -> `Europe/Paris`), taken
 * from the runtime's list. A name outside that list (an alias Luxon accepts: `Asia/Kolkata`,
 * `US/Eastern`) stays as given: resolving aliases (Intl's resolvedOptions) would store another name
 * than the one typed (Asia/Kolkata -> Asia/Calcutta). Validity is `isValidTimeZone`'s to check.
 */
export const timeZoneSpelling = (zone: string): string =>
  zoneSpellingsByLowercase().get(zone.toLowerCase()) ?? zone;

/** The zone Luxon should use; an unknown zone (never accepted by the API) falls back to UTC. */
const zoneOf = (timeZone: string): string => (isValidTimeZone(timeZone) ? timeZone : 'UTC');

/**
 * Calendar dates carry no zone: they are Luxon DateTimes in UTC used only for date arithmetic, so a
 * day the zone skipped (Apia jumped from 29 to 31 December 2011) still counts in week and month
 * arithmetic instead of shifting the periods after it by a day.
 */
type CalendarDate = DateTime;

const calendarDateOf = (ms: number, zone: string): CalendarDate => {
  const local = DateTime.fromMillis(ms, { zone });
  return DateTime.utc(local.year, local.month, local.day);
};

function firstDayOfPeriod(
  date: CalendarDate,
  interval: BookingInterval,
  weekStart: WeekdayName,
): CalendarDate {
  switch (interval) {
    case 'day':
      return date;
    case 'week':
      return date.minus({ days: (date.weekday - isoWeekday(weekStart) + 7) % 7 });
    case 'month':
      return date.startOf('month');
    case 'year':
      return date.startOf('year');
  }
}

const UNIT = { day: 'days', week: 'weeks', month: 'months', year: 'years' } as const;

/**
 * The instant at which a calendar day starts in the zone. A midnight that does not exist moves to
 * the first instant of the day (or, for a skipped day, of the next day that exists). A local
 * midnight that happens twice (a clock set back across midnight, as St. John's did at 00:01 until
 * 2011) counts at its later occurrence, so the repeated stretch stays with the earlier day and
 * every instant falls in exactly one period.
 */
function dayStart(date: CalendarDate, zone: string): number {
  const local = DateTime.fromObject({ year: date.year, month: date.month, day: date.day }, { zone }).startOf(
    'day',
  );
  let latest = local.toMillis();
  for (const candidate of local.getPossibleOffsets()) latest = Math.max(latest, candidate.toMillis());
  return latest;
}

/** The period of `interval` that contains `instant`, cut in `frame`. */
export function periodOf(instant: Date | number, interval: BookingInterval, frame: PeriodFrame): Period {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  const zone = zoneOf(frame.timeZone);
  let firstDay = firstDayOfPeriod(calendarDateOf(ms, zone), interval, frame.weekStart);
  let start = dayStart(firstDay, zone);
  if (start > ms) {
    // Only around a repeated midnight: the instant still belongs to the previous period.
    firstDay = firstDayOfPeriod(calendarDateOf(start - 1, zone), interval, frame.weekStart);
    start = dayStart(firstDay, zone);
  }
  // The next period starts on the next calendar day / week / month / year, at the start of that day.
  const end = dayStart(firstDay.plus({ [UNIT[interval]]: 1 }), zone);
  const startDate = new Date(start);
  return { interval, start: startDate, end: new Date(end), key: `${interval}:${startDate.toISOString()}` };
}

/** The periods containing `instant` for the given intervals (default: all four). */
export function periodsOf(
  instant: Date | number,
  frame: PeriodFrame,
  intervals: readonly BookingInterval[] = BOOKING_INTERVALS,
): Period[] {
  return intervals.map((interval) => periodOf(instant, interval, frame));
}

/** The intervals that have a limit, with the limit. */
export function limitedIntervals(
  limits: BookingLimitSet,
): Array<{ interval: BookingInterval; limit: number }> {
  const out: Array<{ interval: BookingInterval; limit: number }> = [];
  for (const interval of BOOKING_INTERVALS) {
    const limit = limits[LIMIT_FIELDS[interval]];
    if (limit !== null) out.push({ interval, limit });
  }
  return out;
}

export const hasAnyLimit = (limits: BookingLimitSet): boolean => limitedIntervals(limits).length > 0;

export interface ReachedLimit {
  interval: BookingInterval;
  limit: number;
  count: number;
}

/**
 * The first limit (day, week, month, year) whose period already holds `limit` or more accepted
 * bookings, given the counts of the periods containing the candidate booking; null when one more
 * booking fits every limit. A count equal to the limit refuses: the period is full. Several limits
 * at once: each is checked, so the strictest one at that moment decides.
 */
export function reachedLimit(
  limits: BookingLimitSet,
  counts: Partial<Record<BookingInterval, number>>,
): ReachedLimit | null {
  for (const { interval, limit } of limitedIntervals(limits)) {
    const count = counts[interval] ?? 0;
    if (count >= limit) return { interval, limit, count };
  }
  return null;
}

/**
 * Merge semantics of PATCH: a key that is absent (undefined) keeps the current value, null removes
 * that limit, a number sets it.
 */
export function mergeLimits(current: BookingLimitSet, patch: Partial<BookingLimitSet>): BookingLimitSet {
  const next: BookingLimitSet = { ...current };
  for (const field of Object.values(LIMIT_FIELDS)) {
    const value = patch[field];
    if (value !== undefined) next[field] = value;
  }
  return next;
}

/** Is `value` a valid limit (integer 1 .. MAX_LIMIT) or null? */
export const isValidLimit = (value: unknown): value is number | null =>
  value === null ||
  (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT);

/**
 * Distinct periods of `interval` touched by a set of instants (sorted by start). Used to count a
 * host's bookings once per period when listing slots over a range.
 */
export function distinctPeriods(
  instants: Iterable<number>,
  interval: BookingInterval,
  frame: PeriodFrame,
): Period[] {
  const seen = new Map<string, Period>();
  let lastEnd = Number.NEGATIVE_INFINITY;
  let lastStart = Number.POSITIVE_INFINITY;
  for (const ms of instants) {
    // Fast path: sorted input mostly stays in the period just computed.
    if (ms >= lastStart && ms < lastEnd) continue;
    const period = periodOf(ms, interval, frame);
    seen.set(period.key, period);
    lastStart = period.start.getTime();
    lastEnd = period.end.getTime();
  }
  return [...seen.values()].sort((a, b) => a.start.getTime() - b.start.getTime());
}
