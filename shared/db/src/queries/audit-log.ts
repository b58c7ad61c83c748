import type { Knex } from 'knex';

/** One audit-log entry (docs/schema.md `audit_log`). `subjectId` is text: numeric and client ids. */
export interface AuditEntry {
  id: number;
  actorUserId: number | null;
  action: string;
  subjectType: string;
  subjectId: string;
  details: Record<string, unknown>;
  createdAt: Date;
}

export interface NewAuditEntry {
  /** Null for actions without a user (a client secret, the system). */
  actorUserId: number | null;
  action: string;
  subjectType: string;
  subjectId: string;
  details?: Record<string, unknown>;
}

interface AuditRow {
  id: number | string;
  actor_user_id: number | string | null;
  action: string;
  subject_type: string;
  subject_id: string;
  details: Record<string, unknown> | string | null;
  created_at: Date;
}

const COLUMNS = [
  'id',
  'actor_user_id',
  'action',
  'subject_type',
  'subject_id',
  'details',
  'created_at',
] as const;

function mapEntry(row: AuditRow): AuditEntry {
  const details = typeof row.details === 'string' ? JSON.parse(row.details) : row.details;
  return {
    id: Number(row.id),
    actorUserId: row.actor_user_id === null ? null : Number(row.actor_user_id),
    action: row.action,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    details: (details ?? {}) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}

/** Appends an entry; pass the transaction of the change it records so both commit together. */
export async function insertAuditEntry(knex: Knex, entry: NewAuditEntry): Promise<void> {
  await knex('audit_log').insert({
    actor_user_id: entry.actorUserId,
    action: entry.action,
    subject_type: entry.subjectType,
    subject_id: entry.subjectId,
    details: JSON.stringify(entry.details ?? {}),
  });
}

/** Entries about one subject, oldest first. */
export async function listAuditEntries(
  knex: Knex,
  subjectType: string,
  subjectId: string,
): Promise<AuditEntry[]> {
  const rows = (await knex('audit_log')
    .where({ subject_type: subjectType, subject_id: subjectId })
    .orderBy('id')
    .select(COLUMNS)) as AuditRow[];
  return rows.map(mapEntry);
}
