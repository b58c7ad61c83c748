import {
  AUDIT_ACTOR_KINDS,
  type AuditEventFilter,
  decodeAuditCursor,
  encodeAuditCursor,
  listAuditEvents,
} from '@sched/db/queries/audit-log';
import type { Knex } from 'knex';
import { z } from 'zod';
import { presentAuditEvent } from '../../presenters/audit-event.ts';
import { idParam } from '../../routing/schemas.ts';

export const AUDIT_DEFAULT_TAKE = 50;
export const AUDIT_MAX_TAKE = 250;

const instant = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .meta({ description: 'ISO 8601 date-time with offset' });

/** Filters and cursor paging of both audit-event lists. */
export const auditEventsQuery = z.strictObject({
  actor: idParam
    .optional()
    .meta({ description: 'user id of the actor (directly, or through a key or an OAuth client)' }),
  actorType: z
    .enum(AUDIT_ACTOR_KINDS)
    .optional()
    .meta({ description: 'how the actor acted: `user` (pages), `api_key`, `oauth_client` or `system`' }),
  actorApiKeyId: idParam.optional().meta({ description: 'the API key the actor used' }),
  actorClientId: z.string().min(1).max(200).optional().meta({ description: 'the OAuth client that acted' }),
  action: z.string().min(1).max(100).optional().meta({ description: 'exact action, e.g. `api_key.created`' }),
  targetType: z.string().min(1).max(50).optional().meta({ description: 'e.g. `oauth_client`, `membership`' }),
  targetId: z.string().min(1).max(200).optional(),
  from: instant.optional().meta({ description: 'events at or after this time' }),
  to: instant.optional().meta({ description: 'events before this time' }),
  cursor: z
    .string()
    .max(300)
    .transform((value, ctx) => {
      const cursor = decodeAuditCursor(value);
      if (cursor) return cursor;
      ctx.addIssue({ code: 'custom', message: 'not a cursor of this list (use pagination.nextCursor)' });
      return z.NEVER;
    })
    .optional()
    .meta({ description: '`pagination.nextCursor` of the previous page (opaque)' }),
  take: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().min(1).max(AUDIT_MAX_TAKE))
    .optional()
    .transform((value) => value ?? AUDIT_DEFAULT_TAKE)
    .meta({ description: `events per page (default ${AUDIT_DEFAULT_TAKE}, at most ${AUDIT_MAX_TAKE})` }),
});

export type AuditEventsQuery = z.output<typeof auditEventsQuery>;

/** One page, newest first, as `{data, pagination}` of the handler result. */
export async function auditEventsPage(
  knex: Knex,
  query: AuditEventsQuery,
  scope: { organizationId?: number; actorHiddenActions?: readonly string[] },
) {
  const filter: AuditEventFilter = { ...scope };
  if (query.actor !== undefined) filter.actorUserId = query.actor;
  if (query.actorType !== undefined) filter.actorKind = query.actorType;
  if (query.actorApiKeyId !== undefined) filter.actorApiKeyId = query.actorApiKeyId;
  if (query.actorClientId !== undefined) filter.actorClientId = query.actorClientId;
  if (query.action !== undefined) filter.action = query.action;
  if (query.targetType !== undefined) filter.targetType = query.targetType;
  if (query.targetId !== undefined) filter.targetId = query.targetId;
  if (query.from !== undefined) filter.from = query.from;
  if (query.to !== undefined) filter.to = query.to;
  const page = await listAuditEvents(knex, filter, {
    take: query.take,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  });
  return {
    data: page.events.map((event) =>
      presentAuditEvent(event, scope.actorHiddenActions?.includes(event.action) ?? false),
    ),
    pagination: { nextCursor: page.next ? encodeAuditCursor(page.next) : null, take: query.take },
  };
}
