import type { RateLimitName } from '@sched/kit/rate-limits';
import { enforceLimit, routeLimitKey, userCallerKey } from '@sched/runtime/rate-limit';
import type { AuthDeps } from '../deps.ts';

/**
 * Counts a settings-page action against the limit of the resource API route that does the same
 * thing, under the same per-user counter: the page is no way around the API's allowance.
 * Over it: a 429 (rendered as the settings pages render errors), nothing done.
 */
export function enforceUserRouteLimit(
  deps: AuthDeps,
  userId: number,
  name: RateLimitName,
  what: string,
): Promise<void> {
  return enforceLimit(
    deps.runtime.stores.tokenStore,
    routeLimitKey(name, userCallerKey(userId)),
    deps.runtime.config.rateLimits[name],
    what,
  );
}
