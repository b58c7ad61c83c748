import type { Knex } from 'knex';

/**
 * The audit log (docs/schema.md `audit_log`): append-only, the database refuses UPDATE, DELETE and
 * TRUNCATE (migration 0015). An event is written with `recordAuditEvent` on the transaction of the
 * change it records, so both commit together or neither does.
 */

export const AUDIT_ACTOR_KINDS = ['user', 'api_key', 'oauth_client', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/**
 * Who acts: a signed-in user (settings pages), a user through one of their API keys, a user through
 * an OAuth client (or a client on its own: the managed-user family), or the system: start-up
 * (ADMIN_EMAIL), jobs and the operator CLI. The CLI is a `system` actor whose events say so in
 * their details (`cliAudit`): whoever runs it has shell access to the deployment, not an account.
 */
export interface AuditActor {
  kind: AuditActorKind;
  userId: number | null;
  apiKeyId?: number | null;
  clientId?: string | null;
}

/**
 * What the edge knows about the request that makes a change: the actor, the request id and the
 * caller's address. Built once by the service (API: from the Caller and the Koa context; settings
 * pages: from the signed-in user) and handed to the library and data functions that write.
 */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
  ipAddress: string | null;
  /** Where the change came from, added to the details of every event written with this context. */
  details?: Record<string, unknown>;
}

/** For changes nobody requested over HTTP (the operator CLI, start-up bootstrap, jobs). */
export const SYSTEM_AUDIT: AuditContext = Object.freeze({
  actor: Object.freeze({ kind: 'system', userId: null }) as AuditActor,
  requestId: null,
  ipAddress: null,
});

/**
 * The operator CLI running `command` (`npm run cli -- <command>`, directly or through a running
 * server's control socket): the system acts, and each event's details carry `via: 'cli'` and the
 * command, so the log tells an operator's change from a job's.
 */
export const cliAudit = (command: string): AuditContext => ({
  actor: { kind: 'system', userId: null },
  requestId: null,
  ipAddress: null,
  details: { via: 'cli', command },
});

/** The acting user of a context, or null (system, a client acting on its own). */
export const auditActorUserId = (audit: AuditContext | undefined): number | null =>
  audit?.actor.userId ?? null;

export interface AuditEvent {
  id: number;
  action: string;
  actor: AuditActor & { apiKeyId: number | null; clientId: string | null };
  targetType: string;
  targetId: string | null;
  organizationId: number | null;
  before: unknown;
  after: unknown;
  details: Record<string, unknown>;
  requestId: string | null;
  ipAddress: string | null;
  createdAt: Date;
}

/** An event to append. Never put a secret (or its hash) in `before`, `after` or `details`. */
export interface NewAuditEvent {
  action: string;
  targetType: string;
  targetId: string | number | null;
  organizationId?: number | null;
  before?: unknown;
  after?: unknown;
  details?: Record<string, unknown>;
}

interface AuditRow {
  id: number | string;
  actor_kind: AuditActorKind;
  actor_user_id: number | string | null;
  actor_api_key_id: number | string | null;
  actor_client_id: string | null;
  action: string;
  subject_type: string;
  subject_id: string | null;
  organization_id: number | string | null;
  before: unknown;
  after: unknown;
  details: Record<string, unknown> | string | null;
  request_id: string | null;
  ip_address: string | null;
  created_at: Date;
  cursor_at: string;
}

const COLUMNS = [
  'id',
  'actor_kind',
  'actor_user_id',
  'actor_api_key_id',
  'actor_client_id',
  'action',
  'subject_type',
  'subject_id',
  'organization_id',
  'before',
  'after',
  'details',
  'request_id',
  'ip_address',
  'created_at',
] as const;

const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
const numberOrNull = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

function mapEvent(row: AuditRow): AuditEvent {
  return {
    id: Number(row.id),
    action: row.action,
    actor: {
      kind: row.actor_kind,
      userId: numberOrNull(row.actor_user_id),
      apiKeyId: numberOrNull(row.actor_api_key_id),
      clientId: row.actor_client_id,
    },
    targetType: row.subject_type,
    targetId: row.subject_id,
    organizationId: numberOrNull(row.organization_id),
    before: json(row.before) ?? null,
    after: json(row.after) ?? null,
    details: (json(row.details) ?? {}) as Record<string, unknown>,
    requestId: row.request_id,
    ipAddress: row.ip_address,
    createdAt: row.created_at,
  };
}

const jsonb = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

/**
 * Appends an event. `knex` must be the transaction of the change it records (a write that is a
 * single statement is wrapped in a transaction with it), so a change that fails writes no event.
 */
export async function recordAuditEvent(
  knex: Knex,
  audit: AuditContext | undefined,
  event: NewAuditEvent,
): Promise<void> {
  const context = audit ?? SYSTEM_AUDIT;
  await knex('audit_log').insert({
    actor_kind: context.actor.kind,
    actor_user_id: context.actor.userId,
    actor_api_key_id: context.actor.apiKeyId ?? null,
    actor_client_id: context.actor.clientId ?? null,
    action: event.action,
    subject_type: event.targetType,
    subject_id: event.targetId === null ? null : String(event.targetId),
    organization_id: event.organizationId ?? null,
    before: jsonb(event.before),
    after: jsonb(event.after),
    details: JSON.stringify({ ...context.details, ...event.details }),
    request_id: context.requestId,
    ip_address: context.ipAddress,
  });
}

/** One audit-log entry in the older, subject-centred shape (tests and the client pages read it). */
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

/**
 * Appends an entry with a user actor (or the system when `actorUserId` is null) and no request
 * facts; prefer `recordAuditEvent` with the request's `AuditContext`.
 */
export async function insertAuditEntry(knex: Knex, entry: NewAuditEntry): Promise<void> {
  await recordAuditEvent(
    knex,
    entry.actorUserId === null
      ? SYSTEM_AUDIT
      : { actor: { kind: 'user', userId: entry.actorUserId }, requestId: null, ipAddress: null },
    {
      action: entry.action,
      targetType: entry.subjectType,
      targetId: entry.subjectId,
      details: entry.details ?? {},
    },
  );
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
  return rows.map((row) => {
    const event = mapEvent(row);
    return {
      id: event.id,
      actorUserId: event.actor.userId,
      action: event.action,
      subjectType: event.targetType,
      subjectId: event.targetId ?? '',
      details: event.details,
      createdAt: event.createdAt,
    };
  });
}

/** Where a page ends: the (created_at, id) of its last event; `at` keeps the database's microseconds. */
export interface AuditCursor {
  at: string;
  id: number;
}

/** A cursor as callers hold it, opaque: base64url of `{"at": <created_at, microseconds>, "id": <id>}`. */
export const encodeAuditCursor = (cursor: AuditCursor): string =>
  Buffer.from(JSON.stringify({ at: cursor.at, id: cursor.id })).toString('base64url');

const CURSOR_AT = /^(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/**
 * A cursor of `encodeAuditCursor`, or null for anything else. The time must be a real one the
 * database can compare (not the 30th of February, not year 0): the cursor comes back from callers,
 * and an impossible time would fail the query instead of being refused as bad input.
 */
export function decodeAuditCursor(value: string): AuditCursor | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { at, id } = parsed as { at?: unknown; id?: unknown };
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return null;
  if (typeof at !== 'string') return null;
  const parts = CURSOR_AT.exec(at);
  if (!parts || Number(parts[1]) < 1) return null;
  // Date.parse rolls 02-30 over to 03-02; a real time prints back as it was read.
  const millis = `${at.slice(0, 23)}Z`;
  const time = Date.parse(millis);
  if (Number.isNaN(time) || new Date(time).toISOString() !== millis) return null;
  return { at, id };
}

export interface AuditEventFilter {
  actorUserId?: number;
  actorKind?: AuditActorKind;
  actorApiKeyId?: number;
  actorClientId?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  organizationId?: number;
  from?: Date;
  to?: Date;
  /**
   * Events of these actions never match the actor filters (`actorUserId`, `actorApiKeyId`,
   * `actorClientId`): for readers who are not shown who acted in them, so a filter cannot tell.
   */
  actorHiddenActions?: readonly string[];
}

export interface AuditEventPage {
  events: AuditEvent[];
  /** The position after the last event, when there may be more. */
  next: AuditCursor | null;
}

/**
 * Events matching `filter`, newest first (created_at, then id, descending), `take` of them after
 * `cursor`. `from` is inclusive, `to` exclusive.
 */
export async function listAuditEvents(
  knex: Knex,
  filter: AuditEventFilter,
  page: { cursor?: AuditCursor; take: number },
): Promise<AuditEventPage> {
  const query = knex('audit_log').select([
    ...COLUMNS,
    // The text form keeps the microseconds a JS Date would drop, so the cursor is exact.
    knex.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at`),
  ]);
  if (filter.actorUserId !== undefined) query.where('actor_user_id', filter.actorUserId);
  if (filter.actorKind !== undefined) query.where('actor_kind', filter.actorKind);
  if (filter.actorApiKeyId !== undefined) query.where('actor_api_key_id', filter.actorApiKeyId);
  if (filter.actorClientId !== undefined) query.where('actor_client_id', filter.actorClientId);
  const byActor =
    filter.actorUserId !== undefined ||
    filter.actorApiKeyId !== undefined ||
    filter.actorClientId !== undefined;
  if (byActor && filter.actorHiddenActions?.length) query.whereNotIn('action', filter.actorHiddenActions);
  if (filter.action !== undefined) query.where('action', filter.action);
  if (filter.targetType !== undefined) query.where('subject_type', filter.targetType);
  if (filter.targetId !== undefined) query.where('subject_id', filter.targetId);
  if (filter.organizationId !== undefined) query.where('organization_id', filter.organizationId);
  if (filter.from !== undefined) query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query.where('created_at', '<', filter.to);
  if (page.cursor) {
    query.whereRaw('(created_at, id) < (?::timestamptz, ?)', [page.cursor.at, page.cursor.id]);
  }
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.take + 1)) as AuditRow[];
  const more = rows.length > page.take;
  const shown = more ? rows.slice(0, page.take) : rows;
  const last = shown.at(-1);
  return {
    events: shown.map(mapEvent),
    next: more && last ? { at: last.cursor_at, id: Number(last.id) } : null,
  };
}
