import { Counter, register } from 'prom-client';

/**
 * What an operator watches besides request rates (README "Metrics"): OAuth grants by type and
 * outcome, sign-in failures, rate-limit refusals, mail. One registry per process, so in the
 * all-in-one launcher both services count into the same series.
 */

const grants = new Counter({
  name: 'oauth_grants_total',
  help: 'Token endpoint grants by grant type and outcome (success, or the OAuth error code)',
  labelNames: ['grant_type', 'outcome'] as const,
  registers: [register],
});

const signInFailures = new Counter({
  name: 'sign_in_failures_total',
  help: 'Failed sign-ins by reason (credentials, locked)',
  labelNames: ['reason'] as const,
  registers: [register],
});

const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused with 429, by what was limited',
  labelNames: ['limit'] as const,
  registers: [register],
});

const mail = new Counter({
  name: 'mail_messages_total',
  help: 'Mail delivery attempts by outcome (sent, retrying, failed = out of attempts)',
  labelNames: ['outcome'] as const,
  registers: [register],
});

const calendarBusySkipped = new Counter({
  name: 'calendar_busy_times_skipped_total',
  help: 'Busy-time reads of a calendar connection left out of availability (provider error or slower than 3 s), by provider',
  labelNames: ['provider'] as const,
  registers: [register],
});

const calendarWrites = new Counter({
  name: 'calendar_writes_total',
  help: 'Calendar write attempts (create, move, delete of booking events) by outcome (done, retrying, failed = out of attempts)',
  labelNames: ['outcome'] as const,
  registers: [register],
});

/** Grant types a client may send are free text: anything unknown is counted as `other`. */
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials']);

export const countGrant = (grantType: unknown, outcome: string): void =>
  grants.inc({ grant_type: GRANT_TYPES.has(String(grantType)) ? String(grantType) : 'other', outcome });

export const countSignInFailure = (reason: 'credentials' | 'locked'): void => signInFailures.inc({ reason });

export const countRateLimitRefusal = (limit: string): void => rateLimitRefusals.inc({ limit });

export const countMail = (outcome: 'sent' | 'retrying' | 'failed'): void => mail.inc({ outcome });

export const countCalendarBusySkipped = (provider: string): void => calendarBusySkipped.inc({ provider });

export const countCalendarWrite = (outcome: 'done' | 'retrying' | 'failed'): void =>
  calendarWrites.inc({ outcome });
