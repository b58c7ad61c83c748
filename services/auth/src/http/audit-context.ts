import type { AuditContext } from '@sched/db/queries/audit-log';
import type { Context } from 'koa';

/** The signed-in user acting in this request, for the audit events of what they change. */
export function userAuditContext(ctx: Pick<Context, 'ip' | 'state'>, userId: number): AuditContext {
  return {
    actor: { kind: 'user', userId },
    requestId: (ctx.state as { requestId?: string }).requestId ?? null,
    ipAddress: ctx.ip || null,
  };
}
