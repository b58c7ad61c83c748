import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import type { Caller } from '../routing/caller.ts';
import type { AnyRoute } from '../routing/route.ts';

/**
 * Scope check for OAuth tokens, then role / PBAC for organization and team routes.
 * TODO(issue 4): implement with @sched/policy (checkTokenScopes, decideAccess) and cached membership lookups.
 */
export async function authorize(
  _ctx: Context,
  _route: AnyRoute,
  _caller: Caller | undefined,
  _params: unknown,
  _deps: Runtime,
): Promise<void> {}
