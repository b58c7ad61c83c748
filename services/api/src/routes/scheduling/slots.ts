import { findEventTypeById } from '@sched/db/queries/event-types';
import { BadRequestError, NotFoundError } from '@sched/kit/errors';
import { DateTime } from 'luxon';
import { defineRoute } from '../../routing/route.ts';
import { slotsByDateOutput } from '../../scheduling/presenters.ts';
import { computeSlots } from '../../scheduling/slots.ts';
import { slotsQuery } from './schemas.ts';

/** Longest range one request may ask for (start to end). */
export const MAX_SLOT_RANGE_DAYS = 93;
const DAY_MS = 86_400_000;
/** `YYYY-MM-DD`: a whole day, read in the query's zone. */
export const isDate = (value: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(value);

/**
 * `start` / `end`: a date is a whole day in `zone` (end inclusive: up to the end of that day), a
 * date-time is that instant (end inclusive too; one without offset is read in `zone`). 400 when
 * end is before start or the range is longer than MAX_SLOT_RANGE_DAYS (the slots and the
 * busy-times endpoints alike).
 */
export function rangeOf(start: string, end: string, zone: string): { from: number; to: number } {
  const from = isDate(start)
    ? DateTime.fromISO(start, { zone }).startOf('day').toMillis()
    : DateTime.fromISO(start, { zone }).toMillis();
  const to = isDate(end)
    ? DateTime.fromISO(end, { zone }).plus({ days: 1 }).startOf('day').toMillis() - 1
    : DateTime.fromISO(end, { zone }).toMillis();
  if (!(to >= from)) {
    throw new BadRequestError('end must not be before start', [
      { field: 'query.end', message: 'must not be before start' },
    ]);
  }
  if (to - from > MAX_SLOT_RANGE_DAYS * DAY_MS) {
    throw new BadRequestError(`The range may span at most ${MAX_SLOT_RANGE_DAYS} days`, [
      { field: 'query.end', message: `at most ${MAX_SLOT_RANGE_DAYS} days after start` },
    ]);
  }
  return { from, to };
}

export const slotRoutes = [
  defineRoute({
    method: 'GET',
    path: '/slots',
    summary:
      'Bookable slots of an event type between start and end (dates inclusive, read in timeZone, or ISO date-times), grouped by date in timeZone',
    tags: ['Slots'],
    auth: 'public',
    mcp: {
      name: 'get_available_slots',
      description:
        'Bookable slot starts of an event type between start and end (dates YYYY-MM-DD, inclusive, read in timeZone, or ISO date-times), grouped by date',
    },
    query: slotsQuery,
    response: { status: 200, description: 'Slot starts by date', schema: slotsByDateOutput },
    handler: async ({ deps, query }) => {
      const zone = query.timeZone ?? 'UTC';
      const { from, to } = rangeOf(query.start, query.end, zone);
      const knex = deps.stores.db.knex;
      const eventType = await findEventTypeById(knex, query.eventTypeId);
      if (!eventType) throw new NotFoundError('Event type not found');
      const starts = await computeSlots(
        knex,
        eventType,
        { from, to, now: Date.now() },
        deps.calendars.busyTimes,
      );
      const byDate: Record<string, Array<{ start: string }>> = {};
      for (const start of starts) {
        const local = DateTime.fromMillis(start, { zone });
        const date = local.toISODate()!;
        const list = byDate[date] ?? [];
        list.push({ start: local.toISO()! });
        byDate[date] = list;
      }
      return { data: byDate };
    },
  }),
];
