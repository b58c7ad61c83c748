import { z } from 'zod';
import { named } from '../../openapi/named.ts';
import { idValue } from '../../routing/schemas.ts';
import { dateOrDateTime, timeZone } from '../scheduling/schemas.ts';

/** A CalDAV server URL: absolute http(s), no credentials in it (they go in their own fields). */
const serverUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '';
  }, 'must not contain a user name or password');

export const connectCalDavBody = named(
  'ConnectCalDavRequest',
  z.strictObject({
    serverUrl,
    username: z.string().trim().min(1).max(320),
    password: z.string().min(1).max(1000),
  }),
  { serverUrl: 'https://caldav.example.com/', username: 'alex', password: 'app-password' },
);

export const updateCalendarsBody = named(
  'UpdateCalendarConnectionRequest',
  z.strictObject({
    calendars: z
      .array(
        z.strictObject({
          id: idValue,
          checkForConflicts: z.boolean().optional(),
          isDestination: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(200)
      .refine((list) => new Set(list.map((c) => c.id)).size === list.length, 'must not repeat a calendar')
      .refine(
        (list) => list.filter((c) => c.isDestination === true).length <= 1,
        'one destination calendar at most',
      ),
  }),
  { calendars: [{ id: 9, checkForConflicts: true, isDestination: true }] },
);

export const busyTimesQuery = z.object({
  start: dateOrDateTime,
  end: dateOrDateTime,
  timeZone: timeZone.optional().meta({ description: 'zone that dates are read in (default: the user’s)' }),
});
