import { getBookingLimitsOf } from '@sched/db/queries/booking-limits';
import {
  countEventTypeBookings,
  countHostBookings,
  type HostCountProbe,
  listBusy,
} from '@sched/db/queries/bookings';
import { bookableHostIds, type EventType } from '@sched/db/queries/event-types';
import { getHostProfiles } from '@sched/db/queries/schedules';
import { overlapsAny, overlapTest, slotStarts } from '@sched/policy/availability';
import {
  type BookingLimitSet,
  distinctPeriods,
  limitedIntervals,
  type Period,
  type PeriodFrame,
  periodOf,
} from '@sched/policy/booking-periods';
import type { Knex } from 'knex';
import type { ExternalBusy } from './external-busy.ts';
import { eventTypeFrame, hostFrame, hostWindows } from './frames.ts';

const MINUTE = 60_000;

/** The periods (of the limited intervals) that are full: key -> true. */
type FullPeriods = Set<string>;

interface LimitProbe {
  period: Period;
  limit: number;
}

/** Periods touched by `instants` for every limited interval, with the limit that applies. */
function probesFor(limits: BookingLimitSet, frame: PeriodFrame, instants: readonly number[]): LimitProbe[] {
  return limitedIntervals(limits).flatMap(({ interval, limit }) =>
    distinctPeriods(instants, interval, frame).map((period) => ({ period, limit })),
  );
}

/** Is any period containing `instant` in `full`? */
function inFullPeriod(
  full: FullPeriods,
  limits: BookingLimitSet,
  frame: PeriodFrame,
  instant: number,
): boolean {
  if (full.size === 0) return false;
  return limitedIntervals(limits).some(({ interval }) => full.has(periodOf(instant, interval, frame).key));
}

/**
 * Bookable slot starts (epoch ms, ascending) of an event type whose start lies in [from, to] and
 * not before `now`. A slot is offered when at least one bookable host has it inside their
 * availability, has no accepted booking overlapping it, and none of that host's booking-limit
 * periods containing the slot is full; and none of the event type's own limit periods is full.
 * Queries: hosts, profiles, limits, busy times, and one count statement per level; each count is
 * an index range scan per period, so the cost does not grow with the hosts' history. With
 * `calendars`, the busy times of the hosts' connected calendars (checked for conflicts) also
 * take slots away (docs/calendars.md); they are read while the counts run.
 */
export async function computeSlots(
  knex: Knex,
  eventType: EventType,
  range: { from: number; to: number; now: number },
  calendars?: ExternalBusy,
): Promise<number[]> {
  const from = Math.max(range.from, range.now);
  const to = range.to;
  if (to < from) return [];
  const length = eventType.lengthInMinutes * MINUTE;
  const hostIds = await bookableHostIds(knex, eventType);
  if (hostIds.length === 0) return [];
  const [hosts, limitsByHost, busy] = await Promise.all([
    getHostProfiles(knex, hostIds),
    getBookingLimitsOf(knex, hostIds),
    listBusy(knex, hostIds, new Date(from), new Date(to + length)),
  ]);

  // Candidate slots per host from their availability alone.
  const candidates = new Map<number, number[]>();
  for (const host of hosts) {
    const windows = hostWindows(host, from, to + length);
    candidates.set(host.id, slotStarts(windows, eventType.lengthInMinutes, from, to));
  }

  // Count every period that a limit applies to, for all hosts in one statement.
  const hostProbes: Array<{ hostId: number; probe: LimitProbe }> = [];
  for (const host of hosts) {
    const instants = candidates.get(host.id) ?? [];
    if (instants.length === 0) continue;
    const limits = limitsByHost.get(host.id)!;
    for (const probe of probesFor(limits, hostFrame(host), instants))
      hostProbes.push({ hostId: host.id, probe });
  }
  const eventFrame = eventTypeFrame(eventType, hosts);
  const allInstants = [...new Set([...candidates.values()].flat())].sort((a, b) => a - b);
  const eventProbes = probesFor(eventType.bookingLimits, eventFrame, allInstants);

  const [hostCounts, eventCounts, calendarBusy] = await Promise.all([
    countHostBookings(
      knex,
      hostProbes.map(
        ({ hostId, probe }): HostCountProbe => ({ hostId, start: probe.period.start, end: probe.period.end }),
      ),
    ),
    countEventTypeBookings(
      knex,
      eventType.id,
      eventProbes.map(({ period }) => period),
    ),
    calendars
      ? calendars.ofHosts(
          hosts.map((host) => ({
            id: host.id,
            timeZone: host.timeZone,
            calendarVersion: host.calendarVersion,
          })),
          from,
          to + length,
        )
      : undefined,
  ]);

  const fullByHost = new Map<number, FullPeriods>(hosts.map((host) => [host.id, new Set<string>()]));
  hostProbes.forEach(({ hostId, probe }, index) => {
    if ((hostCounts[index] ?? 0) >= probe.limit) fullByHost.get(hostId)!.add(probe.period.key);
  });
  const fullEvent: FullPeriods = new Set();
  eventProbes.forEach((probe, index) => {
    if ((eventCounts[index] ?? 0) >= probe.limit) fullEvent.add(probe.period.key);
  });

  const busyByHost = new Map<number, Array<{ start: number; end: number }>>();
  for (const interval of busy) {
    const list = busyByHost.get(interval.hostId) ?? [];
    list.push(interval);
    busyByHost.set(interval.hostId, list);
  }

  const offered = new Set<number>();
  for (const host of hosts) {
    const frame = hostFrame(host);
    const limits = limitsByHost.get(host.id)!;
    const full = fullByHost.get(host.id)!;
    const hostBusy = busyByHost.get(host.id) ?? [];
    // Hundreds of calendar events against every candidate: sorted once, binary-searched per slot.
    const calendarOverlaps = overlapTest(calendarBusy?.get(host.id) ?? []);
    for (const start of candidates.get(host.id) ?? []) {
      if (offered.has(start)) continue;
      if (overlapsAny(hostBusy, start, start + length)) continue;
      if (calendarOverlaps(start, start + length)) continue;
      if (inFullPeriod(full, limits, frame, start)) continue;
      if (inFullPeriod(fullEvent, eventType.bookingLimits, eventFrame, start)) continue;
      offered.add(start);
    }
  }
  return [...offered].sort((a, b) => a - b);
}
