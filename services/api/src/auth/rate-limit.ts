import { sha256Hex } from '@sched/kit/secrets';
import { enforceLimit, routeLimitKey, userCallerKey } from '@sched/runtime/rate-limit';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import type { Caller } from '../routing/caller.ts';
import type { RouteRateLimit } from '../routing/route.ts';

/**
 * A route's declared rate limit, counted per caller: the user (API key or OAuth token alike), the
 * client on client-secret routes, the IP address of an anonymous caller of a public route. The
 * counters live in the token store, so every API process counts together.
 */
export async function enforceRouteLimit(
  limit: RouteRateLimit,
  caller: Caller | undefined,
  ctx: Context,
  deps: Runtime,
): Promise<void> {
  await enforceCallerLimit(limit, callerKey(caller, ctx), deps, ctx);
}

/**
 * `limit` (its figures from the config) counted for one caller key (`user:<id>`, `client:<hash>`,
 * `ip:<address>`); with `ctx`, the answer carries the RateLimit-* headers.
 */
export async function enforceCallerLimit(
  limit: RouteRateLimit,
  who: string,
  deps: Runtime,
  ctx?: Context,
): Promise<void> {
  const figures = deps.config.rateLimits[limit.name];
  await enforceLimit(deps.stores.tokenStore, routeLimitKey(limit.name, who), figures, limit.what, ctx?.res);
}

function callerKey(caller: Caller | undefined, ctx: Context): string {
  if (!caller) return `ip:${ctx.ip}`;
  if (caller.kind === 'client-secret') return `client:${sha256Hex(caller.clientId).slice(0, 32)}`;
  return userCallerKey(caller.userId);
}
