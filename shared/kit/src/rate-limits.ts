/**
 * Every rate limit of the system, by name, with its default (README "Rate limits"). Operators
 * change any of them with RATE_LIMITS (`name=max/window`, comma-separated; the window a number of
 * seconds or with a unit s, m, h, d: `token=2400/1m,sign-up-ip=5/1h`). Counters live in the token
 * store, so every replica of every service counts together.
 */

/** At most `max` counted events per fixed window of `windowSeconds`. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;

export const RATE_LIMIT_DEFAULTS = {
  /** Token endpoint requests, per client id. */
  token: { max: 1200, windowSeconds: MINUTE },
  /** Revocation endpoint requests, per client id. */
  revoke: { max: 600, windowSeconds: MINUTE },
  /** Introspection endpoint requests, per client or resource-server id. */
  introspect: { max: 600, windowSeconds: MINUTE },
  /** Failed sign-ins per account (then locked for the rest of the window). */
  'sign-in-failures-account': { max: 10, windowSeconds: 15 * MINUTE },
  /** Failed sign-ins per client address (then locked for the rest of the window). */
  'sign-in-failures-ip': { max: 50, windowSeconds: 15 * MINUTE },
  /** Accounts created, per client address. */
  'sign-up-ip': { max: 20, windowSeconds: HOUR },
  /** "Forgot password?" requests, per client address. */
  'password-reset-ip': { max: 20, windowSeconds: HOUR },
  /** Reset e-mails per address typed (past it the page answers the same and sends nothing). */
  'password-reset-address': { max: 5, windowSeconds: HOUR },
  /** Verification e-mails resent, per user. */
  'verification-resend': { max: 5, windowSeconds: HOUR },
  /** API keys created, per user (API and settings page together). */
  'api-keys': { max: 50, windowSeconds: HOUR },
  /** OAuth clients created, per user (API and settings page together). */
  'oauth-clients': { max: 50, windowSeconds: HOUR },
  /** Dynamic client registrations (DCR_ENABLED), per client address. */
  'client-registration': { max: 20, windowSeconds: HOUR },
  /** Client secrets generated, per user (API and settings page together). */
  'client-secrets': { max: 50, windowSeconds: HOUR },
  /**
   * CalDAV connection attempts, per user (API, settings page and onboarding step together): each
   * makes the server contact the address given, so it must not become a port scanner.
   */
  'caldav-connections': { max: 30, windowSeconds: HOUR },
  /** Invitations sent (pending memberships made), per inviter. */
  invitations: { max: 100, windowSeconds: HOUR },
  /** Bookings made, per caller (client address when anonymous). */
  bookings: { max: 120, windowSeconds: MINUTE },
  /** Bookings cancelled or rescheduled, per caller (client address when anonymous). */
  'booking-changes': { max: 120, windowSeconds: MINUTE },
} as const satisfies Record<string, Limit>;

export type RateLimitName = keyof typeof RATE_LIMIT_DEFAULTS;
export type RateLimits = Record<RateLimitName, Limit>;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: MINUTE, h: HOUR, d: 24 * HOUR };
const ENTRY = /^([a-z-]+)=([1-9][0-9]{0,8})\/([1-9][0-9]{0,8})([smhd]?)$/;

/**
 * The limits with RATE_LIMITS applied over the defaults. Throws an Error whose message names the
 * offending entry (the config module prefixes the variable's name).
 */
export function parseRateLimits(text: string | undefined): RateLimits {
  const limits: RateLimits = { ...RATE_LIMIT_DEFAULTS };
  if (text === undefined || text.trim() === '') return limits;
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = ENTRY.exec(entry);
    if (!match) {
      throw new Error(
        `entry '${entry}' must look like name=max/window (window in seconds, or with s, m, h or d)`,
      );
    }
    const [, name, max, window, unit] = match;
    if (!Object.hasOwn(RATE_LIMIT_DEFAULTS, name!)) {
      throw new Error(`has no limit named '${name}' (known: ${Object.keys(RATE_LIMIT_DEFAULTS).join(', ')})`);
    }
    limits[name as RateLimitName] = {
      max: Number(max),
      windowSeconds: Number(window) * UNIT_SECONDS[unit || 's']!,
    };
  }
  return limits;
}
