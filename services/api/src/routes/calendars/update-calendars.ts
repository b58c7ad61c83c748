import { z } from 'zod';
import { calendarConnectionOutput } from '../../presenters/calendar-connection.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { updateCalendarsBody } from './schemas.ts';

export const updateCalendarsRoute = defineRoute({
  method: 'PATCH',
  path: '/calendars/:connectionId',
  summary:
    'Chooses which calendars of a connection are checked for conflicts and which one receives new bookings (one destination across all connections)',
  tags: ['Calendars'],
  auth: 'user',
  scope: 'APPS_WRITE',
  params: z.strictObject({ connectionId: idParam }),
  body: updateCalendarsBody,
  response: { status: 200, description: 'The connection', schema: calendarConnectionOutput },
  handler: async ({ caller, deps, params, body }) => ({
    data: await deps.calendars.updateSelection(caller.userId, params.connectionId, body.calendars),
  }),
});
