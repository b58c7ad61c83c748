import { z } from 'zod';
import { calendarConnectionOutput } from '../../presenters/calendar-connection.ts';
import { defineRoute } from '../../routing/route.ts';

export const listCalendarsRoute = defineRoute({
  method: 'GET',
  path: '/calendars',
  summary:
    "The caller's calendar connections with their calendars, status and last write error (no credentials)",
  tags: ['Calendars'],
  auth: 'user',
  scope: 'APPS_READ',
  response: { status: 200, description: 'Connections', schema: z.array(calendarConnectionOutput) },
  handler: async ({ caller, deps }) => ({ data: await deps.calendars.listConnections(caller.userId) }),
});
