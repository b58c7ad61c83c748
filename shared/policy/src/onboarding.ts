import { isValidTimeZone, timeZoneSpelling, WEEKDAY_NAMES, type WeekdayName } from './booking-periods.ts';

/**
 * Rules of the onboarding profile and calendar steps (pure: no I/O). The pages validate with these
 * at the edge; the database only stores what passed.
 */

/** Usernames: 2-40 of a-z 0-9 . _ -, starting with a letter or digit, stored lower-case. */
export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._-]{1,39}$/;

export const normalizeUsername = (value: string): string => value.trim().toLowerCase();

export const isValidUsername = (value: string): boolean => USERNAME_PATTERN.test(value);

export const NAME_MAX_LENGTH = 100;

const CONTROL = /\p{Cc}/u;

/** A display name: 1-100 characters after trimming, no control characters. */
export function isValidName(value: string): boolean {
  const name = value.trim();
  return name.length > 0 && name.length <= NAME_MAX_LENGTH && !CONTROL.test(name);
}

/** Days a week may start on (the users.week_start check constraint's values): the week-day names. */
export const WEEK_STARTS = WEEKDAY_NAMES;
export type WeekStart = WeekdayName;

export const isWeekStart = (value: string): value is WeekStart =>
  (WEEK_STARTS as readonly string[]).includes(value);

/** Zone names offered in a picker: UTC first, then every canonical IANA zone the runtime knows. */
export const TIME_ZONES: readonly string[] = [
  'UTC',
  ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC'),
];

const ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * The IANA name of `value` in its IANA spelling (`europe/paris` -> `Europe/Paris`; an alias such as
 * `Asia/Kolkata` stays as typed, as in the API: `timeZoneSpelling`), or null when it is not an IANA
 * zone. Fixed offsets ("+02:00") and abbreviations ("CET" aside, which IANA lists) are refused: a
 * schedule needs real zone rules.
 */
export function canonicalTimeZone(value: string): string | null {
  const zone = value.trim();
  if (!ZONE_SHAPE.test(zone) || !isValidTimeZone(zone)) return null;
  return timeZoneSpelling(zone);
}

/**
 * Calendar providers a user can pick in onboarding. Only the choice is recorded
 * (users.calendar_provider); connecting the account with the provider happens later in settings.
 */
export const CALENDAR_PROVIDERS = ['google', 'outlook', 'apple', 'caldav'] as const;
export type CalendarProvider = (typeof CALENDAR_PROVIDERS)[number];

export const isCalendarProvider = (value: string): value is CalendarProvider =>
  (CALENDAR_PROVIDERS as readonly string[]).includes(value);
