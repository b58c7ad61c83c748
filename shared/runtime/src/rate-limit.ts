import type { TokenStore } from '@sched/db/token-store/types';
import { RateLimitedError } from '@sched/kit/errors';
import { countRateLimitRefusal } from '@sched/kit/metrics';
import type { Limit } from '@sched/kit/rate-limits';

export type { Limit } from '@sched/kit/rate-limits';

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** 429 with Retry-After and a sentence saying what was limited and for how long. */
export function rateLimited(
  seconds: number,
  what: string,
  headers: Record<string, string> = {},
): RateLimitedError {
  countRateLimitRefusal(what);
  return new RateLimitedError(seconds, `Too many ${what}. Try again in ${describeWait(seconds)}.`, headers);
}

/**
 * Where the RateLimit headers go: the Node response (`ctx.res`). Their names and values are valid
 * header text, so they skip Koa's `ctx.set`, which builds three arrays per header to normalise them
 * (the resource API and the token endpoint set these on every request).
 */
export interface HeaderTarget {
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
}

/** The RateLimit-* headers (IETF draft "RateLimit header fields") of one counted request. */
export function rateLimitHeaders(
  limit: Limit,
  count: number,
  resetInSeconds: number,
): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit.max),
    'RateLimit-Remaining': String(Math.max(0, limit.max - count)),
    'RateLimit-Reset': String(Math.max(0, Math.ceil(resetInSeconds))),
  };
}

/**
 * The counter of a limit of the resource API's routes for one caller (`user:<id>` ...): the pages
 * that do what such a route does count under the same key, so both share one allowance.
 */
export const routeLimitKey = (name: string, who: string): string => `api:${name}:${who}`;

/** The caller key of a user, whichever credential they called with (API key, OAuth token, page). */
export const userCallerKey = (userId: number): string => `user:${userId}`;

/**
 * Counts one event under `key` in the token store (Redis, or the database when embedded), so
 * every replica of every service counts together; throws a 429 error once over the limit. With a
 * `response`, the RateLimit-* headers go on the answer (the 429 carries them too).
 */
export async function enforceLimit(
  store: TokenStore,
  key: string,
  limit: Limit,
  what: string,
  response?: HeaderTarget,
): Promise<void> {
  const { count, resetInSeconds } = await store.hit(key, limit.windowSeconds);
  const headers = response ? rateLimitHeaders(limit, count, resetInSeconds) : {};
  // As ctx.set did: nothing once the answer's headers have gone out (setHeader would throw).
  if (response && !response.headersSent) for (const name in headers) response.setHeader(name, headers[name]!);
  if (count > limit.max) throw rateLimited(resetInSeconds, what, headers);
}
