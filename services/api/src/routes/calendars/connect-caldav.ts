import { calendarConnectionOutput } from '../../presenters/calendar-connection.ts';
import { defineRoute } from '../../routing/route.ts';
import { connectCalDavBody } from './schemas.ts';

export const connectCalDavRoute = defineRoute({
  method: 'POST',
  path: '/calendars/caldav',
  summary:
    'Connects a CalDAV account: discovers its calendars (RFC 6764, principal, calendar home) and verifies the credentials before saving',
  description:
    'Refused credentials: 400 "The calendar server refused these credentials", nothing saved. An unreachable server, ' +
    'a URL that is not a CalDAV server, or one that is not https on the public internet: 400 saying so. ' +
    'Connecting the same account again updates it.',
  tags: ['Calendars'],
  auth: 'user',
  scope: 'APPS_WRITE',
  // Each attempt makes the server contact the address given (also counted on the pages).
  rateLimit: { name: 'caldav-connections', what: 'CalDAV connection attempts' },
  body: connectCalDavBody,
  response: { status: 201, description: 'The connection', schema: calendarConnectionOutput },
  handler: async ({ caller, deps, body }) => ({
    status: 201,
    data: await deps.calendars.connectCalDav(caller.userId, body),
  }),
});
