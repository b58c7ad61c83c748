import { getHostProfiles } from '@sched/db/queries/schedules';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { busyTimeOutput } from '../../presenters/calendar-connection.ts';
import { defineRoute } from '../../routing/route.ts';
import { isDate, rangeOf } from '../scheduling/slots.ts';
import { busyTimesQuery } from './schemas.ts';

export const busyTimesRoute = defineRoute({
  method: 'GET',
  path: '/calendars/busy-times',
  summary:
    "Busy intervals of the caller's calendars checked for conflicts, merged per connection (start/end as in GET /v2/slots)",
  tags: ['Calendars'],
  auth: 'user',
  scope: 'APPS_READ',
  query: busyTimesQuery,
  response: { status: 200, description: 'Busy intervals by start', schema: z.array(busyTimeOutput) },
  handler: async ({ caller, deps, query }) => {
    const [user] = await getHostProfiles(deps.stores.db.knex, [caller.userId]);
    if (!user) throw new NotFoundError('User not found');
    const { from, to } = rangeOf(query.start, query.end, query.timeZone ?? user.timeZone);
    // rangeOf's `to` is inclusive (a date: the last millisecond of that day); intervals are cut
    // at an exclusive end: the next day's start, or the date-time given.
    const end = isDate(query.end) ? to + 1 : to;
    const busy = await deps.calendars.userBusyTimes(user, from, end);
    return {
      data: busy.map((interval) => ({
        start: new Date(interval.start).toISOString(),
        end: new Date(interval.end).toISOString(),
        connectionId: interval.connectionId,
      })),
    };
  },
});
