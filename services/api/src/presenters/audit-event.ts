import { AUDIT_ACTOR_KINDS, type AuditEvent } from '@sched/db/queries/audit-log';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/**
 * An audit event as the API shows it (never a secret: events carry hints at most). With
 * `hideActor`, who acted is left out: the actor's ids, address and request, and the user id in
 * `details` (the kind of actor stays).
 */
export function presentAuditEvent(event: AuditEvent, hideActor = false) {
  const shown = presentEvent(event);
  if (!hideActor) return shown;
  const { userId: _userId, ...details } = shown.details;
  return {
    ...shown,
    actor: { type: shown.actor.type, userId: null, apiKeyId: null, clientId: null },
    details,
    requestId: null,
    ipAddress: null,
  };
}

function presentEvent(event: AuditEvent) {
  return {
    id: event.id,
    action: event.action,
    actor: {
      type: event.actor.kind,
      userId: event.actor.userId,
      apiKeyId: event.actor.apiKeyId,
      clientId: event.actor.clientId,
    },
    target: { type: event.targetType, id: event.targetId },
    organizationId: event.organizationId,
    before: event.before,
    after: event.after,
    details: event.details,
    requestId: event.requestId,
    ipAddress: event.ipAddress,
    createdAt: event.createdAt.toISOString(),
  };
}

export const auditEventOutput = named(
  'AuditEvent',
  z.object({
    id: z.number().int(),
    action: z
      .string()
      .meta({ description: 'what happened, `<target type>.<verb>`', example: 'api_key.created' }),
    actor: z.object({
      type: z.enum(AUDIT_ACTOR_KINDS).meta({
        description:
          'user (settings pages), api_key, oauth_client (a user through an OAuth client, or the client itself) or system (CLI)',
      }),
      userId: z.number().int().nullable(),
      apiKeyId: z.number().int().nullable(),
      clientId: z.string().nullable(),
    }),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    organizationId: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'the organization the event belongs to, if any' }),
    before: z.unknown().meta({ description: 'the changed values before the change (null when created)' }),
    after: z.unknown().meta({ description: 'the changed values after the change (null when deleted)' }),
    details: z.record(z.string(), z.unknown()),
    requestId: z.string().nullable(),
    ipAddress: z.string().nullable(),
    createdAt: z.string(),
  }),
  {
    id: 812,
    action: 'api_key.created',
    actor: { type: 'api_key', userId: 5, apiKeyId: 3, clientId: null },
    target: { type: 'api_key', id: '4' },
    organizationId: null,
    before: null,
    after: { hint: 'a1b2' },
    details: {},
    requestId: '0f6c2d1e-8b1a-4f0e-9d55-5a3e2b7c9d10',
    ipAddress: '203.0.113.9',
    createdAt: '2026-11-26T09:30:00.000Z',
  },
);

export const auditPaginationOutput = named(
  'AuditPagination',
  z.object({
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'pass as `cursor` for the next page; null on the last page' }),
    take: z.number().int(),
  }),
  { nextCursor: 'eyJhdCI6IjIwMjYtMTEtMjZUMDk6MzA6MDAuMDAwMDAwWiIsImlkIjo4MTJ9', take: 50 },
);
