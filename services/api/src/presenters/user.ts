import type { BookingLimits } from '@sched/db/queries/booking-limits';
import type { User } from '@sched/db/queries/users';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/** A user as the API shows them (admin API). */
export function presentUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    name: user.name,
    timeZone: user.timeZone,
    weekStart: user.weekStart,
    locale: user.locale,
    timeFormat: user.timeFormat,
    defaultScheduleId: user.defaultScheduleId,
  };
}

const userFields = {
  id: z.int(),
  email: z.string(),
  username: z.string().nullable(),
  name: z.string().nullable(),
  timeZone: z.string(),
  weekStart: z.string(),
  locale: z.string(),
  timeFormat: z.union([z.literal(12), z.literal(24)]).nullable(),
  defaultScheduleId: z.int().nullable(),
};

/** The example user of the document (create-user's answer shows it too). */
export const userExample = {
  id: 5,
  email: 'mia@example.com',
  username: 'mia',
  name: 'Mia Member',
  timeZone: 'Europe/Berlin',
  weekStart: 'Monday',
  locale: 'en',
  timeFormat: 24,
  defaultScheduleId: 9,
} as const;

export const userOutput = named('User', z.object(userFields), userExample);

/** GET /v2/me. */
export function presentMe(user: User, organizationId: number | null, bookingLimits: BookingLimits) {
  return {
    ...presentUser(user),
    emailVerified: user.emailVerifiedAt !== null,
    organizationId,
    bookingLimits: {
      perDay: bookingLimits.perDay,
      perWeek: bookingLimits.perWeek,
      perMonth: bookingLimits.perMonth,
      perYear: bookingLimits.perYear,
    },
  };
}

const limit = z.int().nullable();

export const meOutput = named(
  'Me',
  z.object({
    ...userFields,
    emailVerified: z.boolean().meta({
      description:
        'Whether the address is verified (link of the verification e-mail, a password reset, or created by a service administrator)',
    }),
    organizationId: z.int().nullable(),
    bookingLimits: z.object({ perDay: limit, perWeek: limit, perMonth: limit, perYear: limit }),
  }),
  {
    ...userExample,
    emailVerified: true,
    organizationId: 7,
    bookingLimits: { perDay: 3, perWeek: null, perMonth: null, perYear: null },
  },
);
