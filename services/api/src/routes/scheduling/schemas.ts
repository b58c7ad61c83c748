import { AVAILABILITY_TIME, availabilityProblems, expandGroups } from '@sched/policy/availability';
import { isValidTimeZone, MAX_LIMIT, timeZoneSpelling, WEEKDAY_NAMES } from '@sched/policy/booking-periods';
import { z } from 'zod';
import { named } from '../../openapi/named.ts';

/** A positive integer id in a path or query string. */
export const idString = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, 'must be a positive integer')
  .transform(Number);

/** A booking limit: an integer from 1 to 2147483647, or null (no limit). */
export const limitValue = z.int().min(1).max(MAX_LIMIT).nullable();

/** PATCH body and event-type `bookingLimits`: any of the four keys; unknown keys are 400. */
export const bookingLimitsInput = named(
  'BookingLimitsInput',
  z.strictObject({
    perDay: limitValue.optional(),
    perWeek: limitValue.optional(),
    perMonth: limitValue.optional(),
    perYear: limitValue.optional(),
  }),
  { perDay: 3, perMonth: null },
);

/** An IANA zone, in the IANA spelling whatever case it came in (`europe/paris` -> `Europe/Paris`). */
export const timeZone = z
  .string()
  .refine(isValidTimeZone, 'must be an IANA time zone')
  .transform(timeZoneSpelling);

const eventTypeFields = {
  title: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .max(100)
    .regex(/^[a-zA-Z0-9]+(?:[-_][a-zA-Z0-9]+)*$/, 'letters, digits, - and _ only'),
  lengthInMinutes: z.int().min(1).max(1440),
  bookingLimits: bookingLimitsInput.optional(),
};

export const personalEventTypeBody = named('CreateEventTypeRequest', z.strictObject(eventTypeFields), {
  title: 'Intro call',
  slug: 'intro-call',
  lengthInMinutes: 30,
  bookingLimits: { perDay: 3 },
});

export const teamEventTypeBody = named(
  'CreateTeamEventTypeRequest',
  z.strictObject({
    ...eventTypeFields,
    hostUserIds: z
      .array(z.int().min(1))
      .min(1)
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a user'),
  }),
  { title: 'Sales demo', slug: 'sales-demo', lengthInMinutes: 45, hostUserIds: [5, 6] },
);

const time = z.string().regex(AVAILABILITY_TIME, 'must be HH:MM (00:00 to 24:00)');

export const scheduleBody = named(
  'ScheduleUpdate',
  z
    .strictObject({
      availability: z
        .array(
          z.strictObject({
            days: z
              .array(z.enum(WEEKDAY_NAMES))
              .min(1)
              .refine((days) => new Set(days).size === days.length, 'must not repeat a day'),
            startTime: time,
            endTime: time,
          }),
        )
        .max(100),
    })
    .superRefine((body, ctx) => {
      for (const message of availabilityProblems(expandGroups(body.availability))) {
        ctx.addIssue({ code: 'custom', path: ['availability'], message });
      }
    }),
  { availability: [{ days: ['Monday', 'Tuesday', 'Wednesday'], startTime: '09:00', endTime: '17:00' }] },
);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** An offset's `+` sent unencoded in a query string arrives as a space (form decoding). */
const UNENCODED_PLUS = /^(\d{4}-\d{2}-\d{2}T[\d:.]+) (\d{2}(?::?\d{2})?)$/;
/**
 * `YYYY-MM-DD` (a whole day in the query's zone) or an ISO date-time: with `Z` or an offset it is
 * that instant; without one it is a wall-clock time read in the query's zone.
 */
export const dateOrDateTime = z
  .string()
  .transform((value) => value.replace(UNENCODED_PLUS, '$1+$2'))
  .pipe(z.union([z.string().regex(DATE).pipe(z.iso.date()), z.iso.datetime({ offset: true, local: true })]))
  .meta({
    description:
      'YYYY-MM-DD (a whole day in timeZone) or an ISO 8601 date-time (with Z or an offset: that instant; without: read in timeZone)',
  });

export const slotsQuery = z.object({
  eventTypeId: idString,
  start: dateOrDateTime,
  end: dateOrDateTime,
  timeZone: timeZone.optional(),
});

export const attendee = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(320),
  timeZone,
});

export const bookingBody = named(
  'CreateBookingRequest',
  z.strictObject({ eventTypeId: z.int().min(1), start: z.iso.datetime({ offset: true }), attendee }),
  {
    eventTypeId: 21,
    start: '2026-12-01T10:00:00+01:00',
    attendee: { name: 'Alex Attendee', email: 'alex@example.org', timeZone: 'America/New_York' },
  },
);

export const cancelBody = named(
  'CancelBookingRequest',
  z
    .strictObject({ cancellationReason: z.string().trim().max(1000).optional() })
    .optional()
    .transform((body) => body ?? {}),
  { cancellationReason: 'Something came up' },
);

export const rescheduleBody = named(
  'RescheduleBookingRequest',
  z.strictObject({ start: z.iso.datetime({ offset: true }) }),
  { start: '2026-12-02T10:00:00+01:00' },
);

export const uidParams = z.object({ uid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a booking uid') });

/** GET bookings lists: unknown parameters are 400 like every list's (a misspelt filter must not list everything). */
export const listBookingsQuery = z.strictObject({
  status: z.enum(['accepted', 'cancelled', 'rejected']).optional(),
  skip: z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .optional(),
  take: z
    .string()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().min(1).max(250))
    .optional(),
});
