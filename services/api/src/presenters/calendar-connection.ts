import { z } from 'zod';
import { named } from '../openapi/named.ts';

/**
 * A calendar connection and its calendars. Built by the calendar service's `presentConnection`
 * (shared with the settings pages); this is its declared shape. No credential is ever part of it.
 */
export const calendarConnectionOutput = named(
  'CalendarConnection',
  z.object({
    id: z.int(),
    provider: z.enum(['caldav', 'google', 'microsoft']),
    account: z.string().meta({ description: 'the account at the provider (e-mail or user name)' }),
    status: z.enum(['active', 'needs_reauth']),
    lastSyncError: z
      .object({ at: z.string(), message: z.string() })
      .nullable()
      .meta({ description: 'the last failed calendar write, until a later one succeeds' }),
    calendars: z.array(
      z.object({
        id: z.int(),
        name: z.string(),
        readOnly: z.boolean(),
        checkForConflicts: z.boolean(),
        isDestination: z.boolean(),
      }),
    ),
  }),
  {
    id: 4,
    provider: 'caldav',
    account: 'alex',
    status: 'active',
    lastSyncError: null,
    calendars: [{ id: 9, name: 'Work', readOnly: false, checkForConflicts: true, isDestination: true }],
  },
);

export const busyTimeOutput = named(
  'CalendarBusyTime',
  z.object({ start: z.string(), end: z.string(), connectionId: z.int() }),
  { start: '2026-12-01T09:00:00.000Z', end: '2026-12-01T10:00:00.000Z', connectionId: 4 },
);
