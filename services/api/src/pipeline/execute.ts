import type { Context } from 'koa';
import type { AccessControl } from '../auth/access-control.ts';
import { authorizeAccess } from '../auth/authorize.ts';
import { enforceRouteLimit } from '../auth/rate-limit.ts';
import type { Target } from '../auth/target.ts';
import type { Caller, UserCaller } from '../routing/caller.ts';
import type { AnyRoute, HandlerResult } from '../routing/route.ts';
import { validateParams, validatePart } from '../routing/validate.ts';
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
 * Steps that can answer from a cache return a value, not a promise, and so does this function
 * when they all did: an await per step (or an async function of its own) would cost a promise and
 * a microtask turn on every request of the hot path. A step's error may be thrown synchronously:
 * callers await the result inside an async function, where both become the same rejection.
 */
export function executeRoute(
  route: AnyRoute,
  control: AccessControl,
  authorized: Authorized,
  raw: RawInputs,
  ctx: Context,
): HandlerResult | Promise<HandlerResult> {
  const { caller, target, versions } = authorized;
  const input: HandlerInput = {
    params: validateParams(route.params, raw.params),
    query: validatePart(route.query, raw.query, 'query'),
    body: validatePart(route.body, raw.body, 'body'),
    caller,
    access: undefined,
    versions,
    cache: control.routeCache,
    deps: control.deps,
    ctx,
  };
  if (route.rateLimit) {
    return enforceRouteLimit(route.rateLimit, caller, ctx, control.deps).then(() =>
      authorizeThenHandle(route, control, target, input),
    );
  }
  return authorizeThenHandle(route, control, target, input);
}

type HandlerInput = Parameters<AnyRoute['handler']>[0];

function authorizeThenHandle(
  route: AnyRoute,
  control: AccessControl,
  target: Target | undefined,
  input: HandlerInput,
): HandlerResult | Promise<HandlerResult> {
  if (!target) return handle(route, control, input);
  const access = authorizeAccess(route, input.caller as UserCaller, target, input.versions, control);
  if (access instanceof Promise) {
    return access.then((known) => {
      input.access = known;
      return handle(route, control, input);
    });
  }
  input.access = access;
  return handle(route, control, input);
}

function handle(
  route: AnyRoute,
  control: AccessControl,
  input: HandlerInput,
): HandlerResult | Promise<HandlerResult> {
  const result = route.handler(input);
  if (control.deps.config.env === 'production') return result;
  return result instanceof Promise
    ? result.then((settled) => checked(route, settled))
    : checked(route, result);
}

function checked(route: AnyRoute, result: HandlerResult): HandlerResult {
  checkResult(route, result);
  return result;
}
