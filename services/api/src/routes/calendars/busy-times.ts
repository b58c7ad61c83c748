import { getHostProfiles } from '@sched/db/queries/schedules';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { busyTimeOutput } from '../../presenters/calendar-connection.ts';
import { defineRoute } from '../../routing/route.ts';
import { rangeOf } from '../scheduling/slots.ts';
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
    const busy = await deps.calendars.userBusyTimes(user, from, to + 1);
    return {
      data: busy.map((interval) => ({
        start: new Date(interval.start).toISOString(),
        end: new Date(interval.end).toISOString(),
        connectionId: interval.connectionId,
      })),
    };
  },
});
