import { bumpBusyVersion } from '@sched/db/queries/calendar-connections';
import { type CalendarWriteAction, enqueueCalendarWrite } from '@sched/db/queries/calendar-writes';
import type { Knex } from 'knex';

/** Busy times of the hosts' connected calendars (the calendar service's BusyTimes). */
export interface ExternalBusy {
  ofHosts(
    hosts: ReadonlyArray<{ id: number; timeZone: string; calendarVersion?: number }>,
    from: number,
    to: number,
  ): Promise<Map<number, Array<{ start: number; end: number }>>>;
}

/**
 * A booking change of `hostUserId`, in its transaction: the calendar write is queued, and the
 * host's cached busy times become stale (their connections' busy version moves on).
 */
export async function recordCalendarChange(
  trx: Knex,
  hostUserId: number,
  write: { bookingId: number; action: CalendarWriteAction; fromBookingId?: number | null },
): Promise<void> {
  await enqueueCalendarWrite(trx, hostUserId, write);
  await bumpBusyVersion(trx, [hostUserId]);
}

/**
 * `intervals` without [start, end). A rescheduled booking's own event is in its host's calendar
 * (written by the queue, or moved there by an earlier reschedule) at exactly the booking's time:
 * it is the booking being moved, not a conflict with it, as its row in our own table is not.
 */
export function withoutInterval(
  intervals: ReadonlyArray<{ start: number; end: number }>,
  start: number,
  end: number,
): Array<{ start: number; end: number }> {
  return intervals.flatMap((interval) => {
    if (interval.end <= start || interval.start >= end) return [interval];
    return [
      ...(interval.start < start ? [{ start: interval.start, end: start }] : []),
      ...(interval.end > end ? [{ start: end, end: interval.end }] : []),
    ];
  });
}
