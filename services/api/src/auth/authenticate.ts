import { UnauthorizedError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import type { Caller } from '../routing/caller.ts';
import type { AnyRoute } from '../routing/route.ts';

/**
 * Resolves the caller from the request's credential for the route's `auth` kind.
 * TODO(issue 4): API keys (svc_, hashed lookup), OAuth access tokens from the token store,
 * x-svc-secret-key for client-secret routes, admin flag.
 */
export async function authenticate(
  _ctx: Context,
  route: AnyRoute,
  _deps: Runtime,
): Promise<Caller | undefined> {
  if (route.auth === 'public') return undefined;
  throw new UnauthorizedError();
}
