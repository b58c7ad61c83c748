import { z } from 'zod';
import { isValidTimeZone, timeZoneSpelling, WEEKDAY_NAMES } from './booking-periods.ts';

/**
 * The rules of a user's profile fields, one definition for every place that edits them:
 * `PATCH /v2/me` and the admin/managed-user routes of the resource API, and the profile page of
 * the settings (authorization server).
 */

/** Locales of the v2 API (ManagedUserOutput). */
export const LOCALES = [
  'ar',
  'ca',
  'de',
  'es',
  'eu',
  'he',
  'id',
  'ja',
  'lv',
  'pl',
  'ro',
  'sr',
  'th',
  'vi',
  'az',
  'cs',
  'el',
  'es-419',
  'fi',
  'hr',
  'it',
  'km',
  'nl',
  'pt',
  'ru',
  'sv',
  'tr',
  'zh-CN',
  'bg',
  'da',
  'en',
  'et',
  'fr',
  'hu',
  'iw',
  'ko',
  'no',
  'pt-BR',
  'sk',
  'ta',
  'uk',
  'zh-TW',
  'bn',
] as const;
export type Locale = (typeof LOCALES)[number];

/** An IANA time zone name (an invalid one is 400), stored in its IANA spelling. */
export const timeZoneInput = z
  .string()
  .max(100)
  .refine(isValidTimeZone, 'must be an IANA time zone, e.g. Europe/Berlin')
  .transform(timeZoneSpelling)
  .meta({ description: 'IANA time zone name (any case; stored and answered in the IANA spelling)' });

export const usernameInput = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-zA-Z0-9]+(?:[._-][a-zA-Z0-9]+)*$/, 'letters, digits and single . _ - between them');

export const nameInput = z.string().trim().min(1).max(200);

export const TIME_FORMATS = [12, 24] as const;

/** The profile a user edits themselves: the body of `PATCH /v2/me` and the settings' profile form. */
export const profilePatch = z.strictObject({
  name: nameInput.nullable().optional(),
  username: usernameInput.nullable().optional(),
  timeZone: timeZoneInput.optional(),
  weekStart: z.enum(WEEKDAY_NAMES).optional(),
  locale: z.enum(LOCALES).optional(),
  timeFormat: z
    .union([z.literal(12), z.literal(24)])
    .nullable()
    .optional(),
});
export type ProfilePatch = z.infer<typeof profilePatch>;
