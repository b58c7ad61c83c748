import type { TokenStore } from '@sched/db/token-store/types';
import { RateLimitedError } from '@sched/kit/errors';
import { countRateLimitRefusal } from '@sched/kit/metrics';

/** At most `max` counted events per fixed window of `windowSeconds`. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** 429 with Retry-After and a sentence saying what was limited and for how long. */
export function rateLimited(seconds: number, what: string): RateLimitedError {
  countRateLimitRefusal(what);
  return new RateLimitedError(seconds, `Too many ${what}. Try again in ${describeWait(seconds)}.`);
}

/**
 * Counts one event under `key` in the token store (Redis, or the database when embedded), so
 * every replica of every service counts together; throws a 429 error once over the limit.
 */
export async function enforceLimit(
  store: TokenStore,
  key: string,
  limit: Limit,
  what: string,
): Promise<void> {
  const { count, resetInSeconds } = await store.hit(key, limit.windowSeconds);
  if (count > limit.max) throw rateLimited(resetInSeconds, what);
}
