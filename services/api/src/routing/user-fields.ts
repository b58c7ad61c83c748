import { isValidTimeZone } from '@sched/policy/booking-periods';
import { z } from 'zod';

/** Locales of api-v2 (ManagedUserOutput). */
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

/** An IANA time zone name (an invalid one is 400, contract §8). */
export const timeZoneInput = z
  .string()
  .max(100)
  .refine(isValidTimeZone, 'must be an IANA time zone, e.g. Europe/Berlin')
  .meta({ description: 'IANA time zone name' });

export const usernameInput = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-zA-Z0-9]+(?:[._-][a-zA-Z0-9]+)*$/, 'letters, digits and single . _ - between them');
