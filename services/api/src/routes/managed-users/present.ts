import type { User } from '@sched/db/queries/users';
import { z } from 'zod';
import { named } from '../../openapi/named.ts';
import { LOCALES } from '../../routing/user-fields.ts';

const isLocale = (value: string): value is (typeof LOCALES)[number] =>
  (LOCALES as readonly string[]).includes(value);

/**
 * ManagedUserOutput with exactly the v2 API's fields: the required fields always present (null
 * where nullable), `locale` only when it is one of the enum's values (not required), `avatarUrl`
 * (nullable) and `metadata` (an object, never null) always sent.
 */
export function presentManagedUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    name: user.name,
    bio: user.bio,
    timeZone: user.timeZone,
    weekStart: user.weekStart,
    createdDate: user.createdAt.toISOString(),
    timeFormat: user.timeFormat,
    defaultScheduleId: user.defaultScheduleId,
    ...(isLocale(user.locale) ? { locale: user.locale } : {}),
    avatarUrl: user.avatarUrl,
    metadata: user.metadata,
  };
}

export const managedUserOutput = named(
  'ManagedUserOutput',
  z.object({
    id: z.number(),
    email: z.string(),
    username: z.string().nullable(),
    name: z.string().nullable(),
    bio: z.string().nullable(),
    timeZone: z.string().meta({ description: 'IANA time zone name' }),
    weekStart: z.string().meta({ description: 'name of the weekday' }),
    createdDate: z.string().meta({ description: 'ISO 8601 date-time' }),
    timeFormat: z.number().nullable(),
    defaultScheduleId: z.number().nullable(),
    locale: z.enum(LOCALES).optional(),
    avatarUrl: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  {
    id: 31,
    email: 'managed-31@example.com',
    username: null,
    name: 'Max Managed',
    bio: null,
    timeZone: 'America/New_York',
    weekStart: 'Sunday',
    createdDate: '2026-11-26T09:30:00.000Z',
    timeFormat: 12,
    defaultScheduleId: 17,
    locale: 'en',
    avatarUrl: null,
    metadata: {},
  },
);
