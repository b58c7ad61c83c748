import { answerJson } from '@sched/kit/http/answer-headers';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import { type AccessControl, createAccessControl } from '../auth/access-control.ts';
import { authenticate } from '../auth/authenticate.ts';
import { authorizeCredential, requireServiceAdmin } from '../auth/authorize.ts';
import { planTarget, resolveTarget } from '../auth/target.ts';
import { successText } from '../presenters/shared-answers.ts';
import type { AnyRoute } from '../routing/route.ts';
import { DEPRECATION_HEADERS } from '../routing/deprecation.ts';
import type { RouteTable } from '../routing/route-table.ts';
import { executeRoute } from './execute.ts';

const NO_KEYS: readonly string[] = [];
const NO_QUERY: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Registers declared routes. Per request, in this order:
 * 1. target: the organization / team an access-controlled route names (ids from the raw path);
 * 2. authenticate (who), reading the credential and the target's invalidation versions in one
 *    token-store round trip;
 * 3. credential rules: token scopes, API-key-only routes, service admin;
 * 4-7. `executeRoute` (shared with the MCP tools): validation (400), the route's rate limit per
 *    caller (429), access (404 / 403), handler (checked against the declaration outside production);
 * 8. envelope.
 * Authentication runs first so an anonymous caller learns nothing from validation errors.
 * Returns the per-app access control (caches), for tests and diagnostics.
 */
export function mountRoutes(table: RouteTable, routes: readonly AnyRoute[], deps: Runtime): AccessControl {
  const control = createAccessControl(deps);
  for (const route of routes) {
    const plan = planTarget(route);
    const handler = async (ctx: Context) => {
      const rawParams = ctx.params as Record<string, string | undefined>;
      // Steps that can answer from a cache return a value, not a promise, when they do: an await
      // per step would cost a promise and a microtask turn on every request of the hot path.
      const pendingTarget = plan ? resolveTarget(plan, rawParams, control) : undefined;
      const target = pendingTarget instanceof Promise ? await pendingTarget : pendingTarget;
      const keys = route.versionKeys
        ? [...(target?.versionKeys ?? NO_KEYS), ...route.versionKeys(rawParams, control.routeCache)]
        : (target?.versionKeys ?? NO_KEYS);
      const { caller, versions } = await authenticate(ctx, route, control, keys);
      authorizeCredential(route, caller);
      if (route.auth === 'admin') await requireServiceAdmin(caller, control);
      const pendingResult = executeRoute(
        route,
        control,
        { caller, target, versions },
        {
          params: rawParams,
          // No query string: nothing to parse (ctx.query would run the parser on ''); the raw
          // URL is asked, as Koa's querystring getter parses the URL on every call.
          query: ctx.req.url?.includes('?') ? ctx.query : NO_QUERY,
          body: (ctx.request as { body?: unknown }).body,
        },
        ctx,
      );
      const result = pendingResult instanceof Promise ? await pendingResult : pendingResult;
      const status = result.status ?? 200;
      if (status === 204) {
        if (result.headers) ctx.set(result.headers);
        ctx.status = 204;
        return;
      }
      // Serialized here (a shared answer once, presenters/shared-answers.ts) and written at once
      // with the service's headers (kit answer-headers.ts): the same bytes and headers as a Koa
      // object body, without setting each header apart.
      answerJson(ctx, status, successText(result.data, result.pagination), result.headers);
    };
    // The table sets the deprecation headers on every answer on the path: this route's (before the
    // handler, so its 401, 400 and 404 carry them) and another method's 405.
    table.add(route.method, route.path, handler, route.deprecated ? { headers: DEPRECATION_HEADERS } : {});
  }
  return control;
}
