import { InsufficientScopeError } from '@sched/kit/errors';
import { checkTokenScopes, insufficientScopeMessage } from '@sched/policy/scopes';
import type { UserCaller } from '../routing/caller.ts';
import type { Tool } from './tools.ts';

/**
 * The scopes a tool needs that the caller's token lacks. Over MCP a tool's declared scope binds
 * every token: also on routes that are public over /v2 (create, reschedule and cancel need
 * BOOKING_WRITE, docs/mcp.md "Tools") and for legacy clients. A tool whose route names no scope
 * (slots) needs only a valid /mcp token.
 */
export function missingToolScopes(tool: Tool, caller: UserCaller): string[] {
  if (tool.scope == null || caller.kind !== 'oauth') return [];
  const check = checkTokenScopes({ requiredScopes: tool.scope, grantedScopes: caller.scopes, legacy: false });
  return check.allowed ? [] : check.missing;
}

/** 403 insufficient_scope naming every scope the calls need (`scope=`): the client steps up with it. */
export function toolScopeError(tools: readonly Tool[], caller: UserCaller): InsufficientScopeError {
  const missing = [...new Set(tools.flatMap((tool) => missingToolScopes(tool, caller)))];
  const granted = caller.kind === 'oauth' ? caller.scopes : [];
  return new InsufficientScopeError(insufficientScopeMessage(missing, granted), missing);
}
