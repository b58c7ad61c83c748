import type { Context } from 'koa';
import type { AccessControl } from '../auth/access-control.ts';
import { authorizeAccess } from '../auth/authorize.ts';
import { enforceRouteLimit } from '../auth/rate-limit.ts';
import type { Target } from '../auth/target.ts';
import type { Caller, UserCaller } from '../routing/caller.ts';
import type { AnyRoute, HandlerResult } from '../routing/route.ts';
import { validatePart } from '../routing/validate.ts';
import { checkResult } from './response-check.ts';

/** A declared route's raw inputs, however they arrived (an HTTP request, an MCP tool call). */
export interface RawInputs {
  params: Record<string, string | undefined>;
  query: unknown;
  body: unknown;
}

/** Who called and what was read with the credential (see `authenticate`). */
export interface Authorized {
  caller: Caller | undefined;
  target: Target | undefined;
  versions: ReadonlyMap<string, number>;
}

/**
 * The steps of a declared route after the credential was checked, shared by /v2 (pipeline/mount.ts)
 * and the MCP tools (mcp/): validate params, query and body (400 with details), the route's rate
 * limit per caller (429), access (404 for an unknown organization / team, 403 from roles and
 * PBAC), then the handler; outside production the answer is checked against the declaration.
 * Steps that can answer from a cache return a value, not a promise: an await per step would cost
 * a promise and a microtask turn on every request of the hot path.
 */
export async function executeRoute(
  route: AnyRoute,
  control: AccessControl,
  authorized: Authorized,
  raw: RawInputs,
  ctx: Context,
): Promise<HandlerResult> {
  const { caller, target, versions } = authorized;
  const params = validatePart(route.params, raw.params, 'params');
  const query = validatePart(route.query, raw.query, 'query');
  const body = validatePart(route.body, raw.body, 'body');
  if (route.rateLimit) await enforceRouteLimit(route.rateLimit, caller, ctx, control.deps);
  const pendingAccess = target
    ? authorizeAccess(route, caller as UserCaller, target, versions, control)
    : undefined;
  const access = pendingAccess instanceof Promise ? await pendingAccess : pendingAccess;
  const pendingResult = route.handler({
    params,
    query,
    body,
    caller,
    access,
    versions,
    cache: control.routeCache,
    deps: control.deps,
    ctx,
  });
  const result = pendingResult instanceof Promise ? await pendingResult : pendingResult;
  if (control.deps.config.env !== 'production') checkResult(route, result);
  return result;
}
