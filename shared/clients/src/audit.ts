import { insertAuditEntry } from '@sched/db/queries/audit-log';
import type { Knex } from 'knex';

/** One audit-log row about a client; pass the transaction of the change so both commit together. */
export const auditClient = (
  trx: Knex,
  actorUserId: number | null,
  action: string,
  clientId: string,
  details: Record<string, unknown> = {},
) =>
  insertAuditEntry(trx, { actorUserId, action, subjectType: 'oauth_client', subjectId: clientId, details });
