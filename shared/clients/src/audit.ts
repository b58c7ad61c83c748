import { type AuditContext, recordAuditEvent } from '@sched/db/queries/audit-log';
import type { Knex } from 'knex';
import type { Actor } from './rights.ts';

/** The actor's audit context, or one naming only the user (callers that pass none). */
export const auditOf = (actor: Actor | null): AuditContext | undefined =>
  actor === null
    ? undefined
    : (actor.audit ?? { actor: { kind: 'user', userId: actor.userId }, requestId: null, ipAddress: null });

/**
 * One audit event about a client; pass the transaction of the change so both commit together.
 * `values` carries before/after (never a secret: hints at most) and the client's organization.
 */
export const auditClient = (
  trx: Knex,
  actor: Actor | null,
  action: string,
  clientId: string,
  details: Record<string, unknown> = {},
  values: { before?: unknown; after?: unknown; organizationId?: number | null } = {},
) =>
  recordAuditEvent(trx, auditOf(actor), {
    action,
    targetType: 'oauth_client',
    targetId: clientId,
    details,
    ...values,
  });
