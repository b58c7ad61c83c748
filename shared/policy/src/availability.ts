// Weekly availability and slot math (schedule, slots). Pure: no I/O, no clock.
// Availability rules are wall-clock times in the schedule's time zone; windows and slots are
// instants (epoch milliseconds), computed with Luxon so DST days come out right.
import { DateTime } from 'luxon';
import { isValidTimeZone, WEEKDAY_NAMES, type WeekdayName } from './booking-periods.ts';

const MINUTE = 60_000;

/** One stored rule: ISO weekday (1 = Monday) and a wall-clock interval; endTime may be "24:00". */
export interface AvailabilityRule {
  weekday: number;
  startTime: string;
  endTime: string;
}

/** The API's grouping (PUT /v2/me/schedule). */
export interface AvailabilityGroup {
  days: WeekdayName[];
  startTime: string;
  endTime: string;
}

/** A bookable window [start, end) in epoch milliseconds. */
export interface Window {
  start: number;
  end: number;
}

/** HH:MM from 00:00 to 24:00 (the API's format). */
export const AVAILABILITY_TIME = /^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::00)?$|^24:00(?::00)?$/;

/** "HH:MM" (or the database's "HH:MM:SS") -> minutes after midnight; null when malformed. */
export function minutesOf(time: string): number | null {
  if (!TIME.test(time)) return null;
  const [h, m] = time.split(':');
  return Number(h) * 60 + Number(m);
}

/** "09:00:00" -> "09:00" (the database returns seconds). */
export const shortTime = (time: string): string => time.slice(0, 5);

/** Expands API groups into one rule per weekday and interval. */
export function expandGroups(groups: readonly AvailabilityGroup[]): AvailabilityRule[] {
  const rules: AvailabilityRule[] = [];
  for (const group of groups) {
    for (const day of group.days) {
      rules.push({
        weekday: WEEKDAY_NAMES.indexOf(day) + 1,
        startTime: shortTime(group.startTime),
        endTime: shortTime(group.endTime),
      });
    }
  }
  return rules.sort((a, b) => a.weekday - b.weekday || a.startTime.localeCompare(b.startTime));
}

/**
 * Problems with a set of rules, as field messages: start not before end, or two intervals of the
 * same weekday that overlap (touching is fine). Empty when valid.
 */
export function availabilityProblems(rules: readonly AvailabilityRule[]): string[] {
  const problems: string[] = [];
  const byDay = new Map<number, Array<{ start: number; end: number }>>();
  for (const rule of rules) {
    const start = minutesOf(rule.startTime);
    const end = minutesOf(rule.endTime);
    if (start === null || end === null) {
      problems.push(`times must be HH:MM (00:00 to 24:00), got ${rule.startTime}-${rule.endTime}`);
      continue;
    }
    if (start >= end) {
      problems.push(`startTime must be before endTime (${rule.startTime}-${rule.endTime})`);
      continue;
    }
    const list = byDay.get(rule.weekday) ?? [];
    list.push({ start, end });
    byDay.set(rule.weekday, list);
  }
  for (const [weekday, list] of byDay) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i += 1) {
      if (list[i]!.start < list[i - 1]!.end) {
        problems.push(`intervals on ${WEEKDAY_NAMES[weekday - 1]} overlap`);
        break;
      }
    }
  }
  return problems;
}

/**
 * Groups rules back into the API shape: rules with the same interval share one group, days in
 * ISO order; groups ordered by their first day, then start time.
 */
export function groupRules(rules: readonly AvailabilityRule[]): AvailabilityGroup[] {
  const groups = new Map<string, { weekdays: Set<number>; startTime: string; endTime: string }>();
  for (const rule of rules) {
    const startTime = shortTime(rule.startTime);
    const endTime = shortTime(rule.endTime);
    const key = `${startTime}-${endTime}`;
    const group = groups.get(key) ?? { weekdays: new Set<number>(), startTime, endTime };
    group.weekdays.add(rule.weekday);
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((group) => ({
      first: Math.min(...group.weekdays),
      days: [...group.weekdays].sort((a, b) => a - b).map((d) => WEEKDAY_NAMES[d - 1]!),
      startTime: group.startTime,
      endTime: group.endTime,
    }))
    .sort((a, b) => a.first - b.first || a.startTime.localeCompare(b.startTime))
    .map(({ days, startTime, endTime }) => ({ days, startTime, endTime }));
}

/** Wall-clock minutes on a local date -> instant; "24:00" is the start of the next day. */
function instantAt(date: DateTime, minutes: number): number {
  const day = date.plus({ days: Math.floor(minutes / 1440) });
  const rest = minutes % 1440;
  return day.set({ hour: Math.floor(rest / 60), minute: rest % 60, second: 0, millisecond: 0 }).toMillis();
}

/**
 * The availability windows of `rules` (wall clock in `timeZone`) that intersect [from, to), in
 * order, touching windows joined. Local dates are walked from the day before `from` to the day after `to`, so windows that
 * cross UTC midnight are not lost. A wall-clock time that does not exist (DST gap) moves forward
 * by the gap; an ambiguous one (DST overlap) takes the earlier offset (Luxon's rules).
 */
export function availabilityWindows(
  rules: readonly AvailabilityRule[],
  timeZone: string,
  from: number,
  to: number,
): Window[] {
  if (rules.length === 0 || to <= from) return [];
  const zone = isValidTimeZone(timeZone) ? timeZone : 'UTC';
  const byDay = new Map<number, Array<{ start: number; end: number }>>();
  for (const rule of rules) {
    const start = minutesOf(rule.startTime);
    const end = minutesOf(rule.endTime);
    if (start === null || end === null || start >= end) continue;
    const list = byDay.get(rule.weekday) ?? [];
    list.push({ start, end });
    byDay.set(rule.weekday, list);
  }
  const windows: Window[] = [];
  let date = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 });
  const last = DateTime.fromMillis(to, { zone }).startOf('day').plus({ days: 1 });
  while (date <= last) {
    const local = date.set({ hour: 12 }); // a time that exists on every date
    for (const { start, end } of byDay.get(local.weekday) ?? []) {
      const midnight = local.startOf('day');
      const window = { start: instantAt(midnight, start), end: instantAt(midnight, end) };
      if (window.end > from && window.start < to && window.start < window.end) windows.push(window);
    }
    date = date.plus({ days: 1 }).startOf('day');
  }
  return mergeWindows(windows);
}

/** Sorts windows and joins those that overlap or touch (Monday until 24:00 + Tuesday from 00:00). */
export function mergeWindows(windows: readonly Window[]): Window[] {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  const merged: Window[] = [];
  for (const window of sorted) {
    const last = merged[merged.length - 1];
    if (last && window.start <= last.end) last.end = Math.max(last.end, window.end);
    else merged.push({ ...window });
  }
  return merged;
}

/**
 * Candidate slot starts: from each window's start in steps of the event length, as long as the
 * whole slot fits in the window, keeping those that start in [from, to]. Sorted, without duplicates.
 */
export function slotStarts(
  windows: readonly Window[],
  lengthMinutes: number,
  from: number,
  to: number,
): number[] {
  const length = lengthMinutes * MINUTE;
  const starts = new Set<number>();
  for (const window of windows) {
    for (let start = window.start; start + length <= window.end; start += length) {
      if (start > to) break;
      if (start >= from) starts.add(start);
    }
  }
  return [...starts].sort((a, b) => a - b);
}

/** Does [start, end) lie entirely inside one window? */
export const withinWindows = (windows: readonly Window[], start: number, end: number): boolean =>
  windows.some((window) => window.start <= start && end <= window.end);

/** Does [start, end) overlap any of the busy intervals? Touching ends do not overlap. */
export const overlapsAny = (busy: readonly Window[], start: number, end: number): boolean =>
  busy.some((interval) => interval.start < end && start < interval.end);

/**
 * `overlapsAny` for many tests against one long list (a connected calendar's hundreds of events
 * against every candidate slot): the list is sorted and joined once, then each test is a binary
 * search. Same answers as `overlapsAny`.
 */
export function overlapTest(busy: readonly Window[]): (start: number, end: number) => boolean {
  const sorted = [...busy].sort((a, b) => a.start - b.start);
  const starts: number[] = [];
  const ends: number[] = [];
  for (const interval of sorted) {
    const last = ends.length - 1;
    // Joined only when overlapping or touching: a gap between two intervals stays a gap.
    if (last >= 0 && interval.start <= ends[last]!) ends[last] = Math.max(ends[last]!, interval.end);
    else {
      starts.push(interval.start);
      ends.push(interval.end);
    }
  }
  return (start, end) => {
    // The last joined interval starting before `end`; earlier ones end before it starts.
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (starts[middle]! < end) low = middle + 1;
      else high = middle;
    }
    return low > 0 && start < ends[low - 1]!;
  };
}
