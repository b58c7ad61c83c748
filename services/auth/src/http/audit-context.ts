import type { AuditActor, AuditContext } from '@sched/db/queries/audit-log';
import type { Context } from 'koa';

/** `actor` acting in this request, with its request id and address, for the audit events it writes. */
export function requestAuditContext(ctx: Pick<Context, 'ip' | 'state'>, actor: AuditActor): AuditContext {
  return {
    actor,
    requestId: (ctx.state as { requestId?: string }).requestId ?? null,
    ipAddress: ctx.ip || null,
  };
}

/** The signed-in user acting in this request. */
export function userAuditContext(ctx: Pick<Context, 'ip' | 'state'>, userId: number): AuditContext {
  return requestAuditContext(ctx, { kind: 'user', userId });
}
