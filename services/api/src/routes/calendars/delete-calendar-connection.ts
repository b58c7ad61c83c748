import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';

export const deleteCalendarConnectionRoute = defineRoute({
  method: 'DELETE',
  path: '/calendars/:connectionId',
  summary:
    'Disconnects a calendar account: its stored credentials are deleted (and the provider token revoked where the provider offers it); events already written stay',
  tags: ['Calendars'],
  auth: 'user',
  scope: 'APPS_WRITE',
  params: z.strictObject({ connectionId: idParam }),
  response: { status: 204, description: 'Disconnected' },
  handler: async ({ caller, deps, params }) => {
    await deps.calendars.disconnect(caller.userId, params.connectionId);
    return { status: 204 };
  },
});
