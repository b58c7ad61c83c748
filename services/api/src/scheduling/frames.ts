import type { EventType } from '@sched/db/queries/event-types';
import type { HostProfile } from '@sched/db/queries/schedules';
import { availabilityWindows, type Window } from '@sched/policy/availability';
import { type PeriodFrame, UTC_FRAME } from '@sched/policy/booking-periods';

/** A host's booking-limit periods are cut in their own zone, weeks starting on their weekStart. */
export const hostFrame = (host: HostProfile): PeriodFrame => ({
  timeZone: host.timeZone,
  weekStart: host.weekStart,
});

/**
 * Where an event type's own limits are cut: a personal event type in its owner's frame; a team
 * event type (several hosts, possibly in several zones) in UTC with Monday weeks.
 */
export function eventTypeFrame(eventType: EventType, hosts: readonly HostProfile[]): PeriodFrame {
  if (eventType.ownerId !== null) {
    const owner = hosts.find((host) => host.id === eventType.ownerId);
    if (owner) return hostFrame(owner);
  }
  return UTC_FRAME;
}

/** The host's availability windows over [from, to): their default schedule, in its zone. */
export const hostWindows = (host: HostProfile, from: number, to: number): Window[] =>
  availabilityWindows(host.rules, host.scheduleTimeZone ?? host.timeZone, from, to);
