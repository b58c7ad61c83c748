import { NotFoundError } from '@sched/kit/errors';
import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { isProviderRoute } from './discovery.ts';

/**
 * The last of our layers in front of oidc-provider. A request for one of `endpoints`' paths goes
 * straight to that endpoint, whose `next` is the provider; any other crosses `pages` (the browser
 * pages, the embed and the authorization request) first. The token endpoint, the busiest, used
 * to cross a dozen page layers on the way in and four endpoint layers on its way to the provider
 * (a promise and a bound function each, and a path test); none of them acts on its path.
 *
 * Only oidc-provider's own routes reach it: a path of ours the provider does not serve is a 404
 * of ours (its 404 would speak the provider's error format).
 */
export function endpointTable(endpoints: Record<string, Middleware>, pages: Middleware[]): Middleware {
  const byPath = new Map(Object.entries(endpoints));
  const throughPages = compose(pages);
  return function endpointTableMiddleware(ctx: Context, next: Next) {
    const endpoint = byPath.get(ctx.path);
    if (endpoint === undefined) return throughPages(ctx, () => toProvider(ctx, next));
    return endpoint(ctx, () => toProvider(ctx, next));
  };
}

function toProvider(ctx: Context, next: Next): Promise<unknown> {
  if (!isProviderRoute(ctx.path)) throw new NotFoundError(`Nothing here: ${ctx.method} ${ctx.path}`);
  return next();
}
