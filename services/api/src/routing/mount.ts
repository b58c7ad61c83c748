import type Router from '@koa/router';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import { authenticate } from '../auth/authenticate.ts';
import { authorize } from '../auth/authorize.ts';
import type { AnyRoute } from './route.ts';
import { validatePart } from './validate.ts';

/**
 * Registers declared routes. Per request, in this order: authenticate (who) -> validate
 * (params, query, body) -> authorize (scope, role, PBAC) -> handler -> envelope.
 * Authentication runs first so an anonymous caller learns nothing from validation errors.
 */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], deps: Runtime): void {
  for (const route of routes) {
    router.register(
      route.path,
      [route.method],
      async (ctx: Context) => {
        const caller = await authenticate(ctx, route, deps);
        const params = validatePart(route.params, ctx.params, 'params');
        const query = validatePart(route.query, ctx.query, 'query');
        const body = validatePart(route.body, (ctx.request as { body?: unknown }).body, 'body');
        await authorize(ctx, route, caller, params, deps);
        const result = await route.handler({ params, query, body, caller, deps, ctx });
        for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
        ctx.status = result.status ?? 200;
        if (ctx.status !== 204) ctx.body = { status: 'success', data: result.data ?? null };
      },
      { name: `${route.method} ${route.path}` },
    );
  }
}
