import type { AuditContext } from '@sched/db/queries/audit-log';
import type { Context } from 'koa';
import type { Caller, UserCaller } from './caller.ts';

/**
 * The audit context of a request (`@sched/db/queries/audit-log`): who acts, from the Caller (an
 * API key: its user and key; an OAuth token: its user and client; the managed-user family's
 * client secret: the client), the request id and the caller's address (`ctx.ip`, which honours
 * TRUST_PROXY). Handlers that change something pass it to the library or data function that writes.
 */
export function auditContextOf(caller: Caller | undefined, ctx: Context): AuditContext {
  const requestId = (ctx.state as { requestId?: string }).requestId ?? null;
  const ipAddress = ctx.ip || null;
  if (!caller) return { actor: { kind: 'system', userId: null }, requestId, ipAddress };
  switch (caller.kind) {
    case 'api-key':
      return {
        actor: { kind: 'api_key', userId: caller.userId, apiKeyId: caller.apiKeyId },
        requestId,
        ipAddress,
      };
    case 'oauth':
      return {
        actor: { kind: 'oauth_client', userId: caller.userId, clientId: caller.clientId },
        requestId,
        ipAddress,
      };
    case 'client-secret':
      return {
        actor: { kind: 'oauth_client', userId: null, clientId: caller.clientId },
        requestId,
        ipAddress,
      };
  }
}

/** The acting user for the client-management library (`@sched/clients`), with the audit context. */
export const actorOf = (caller: UserCaller, ctx: Context) => ({
  userId: caller.userId,
  serviceAdmin: caller.serviceAdmin,
  audit: auditContextOf(caller, ctx),
});
