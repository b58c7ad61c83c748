import {
  type AuditCursor,
  decodeAuditCursor,
  encodeAuditCursor,
  listAuditEvents,
} from '@sched/db/queries/audit-log';
import { BadRequestError } from '@sched/kit/errors';
import { z } from 'zod';
import { csrfFor, userPurpose } from '../web/forms.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type AuditFilters, auditPage, filterQuery } from './audit-pages.ts';
import { type AdminHandler, queryOf, single } from './guard.ts';

/** The console's audit log: filters (actor, action, target), newest first, a cursor per page. */

type Handler = AdminHandler;

const AUDIT_TAKE = 50;
const auditQuery = z.object({
  actor: z
    .string()
    .trim()
    .regex(/^(\d{1,12})?$/, 'must be a user id')
    .optional(),
  action: single(100),
  targetType: single(100),
  targetId: single(200),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/)
    .optional(),
});

function decodeCursor(text: string): AuditCursor {
  const cursor = decodeAuditCursor(text);
  if (!cursor) throw new BadRequestError('Invalid cursor');
  return cursor;
}

export const auditList: Handler = async (deps, ctx, signedIn) => {
  const query = queryOf(ctx, auditQuery);
  const filters: AuditFilters = {
    actor: query.actor ?? '',
    action: query.action ?? '',
    targetType: query.targetType ?? '',
    targetId: query.targetId ?? '',
  };
  const result = await listAuditEvents(
    deps.runtime.stores.db.knex,
    {
      ...(filters.actor !== '' ? { actorUserId: Number(filters.actor) } : {}),
      ...(filters.action !== '' ? { action: filters.action } : {}),
      ...(filters.targetType !== '' ? { targetType: filters.targetType } : {}),
      ...(filters.targetId !== '' ? { targetId: filters.targetId } : {}),
    },
    { take: AUDIT_TAKE, ...(query.cursor ? { cursor: decodeCursor(query.cursor) } : {}) },
  );
  const next = result.next ? filterQuery(filters, { cursor: encodeAuditCursor(result.next) }) : null;
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    'Audit log',
    shell(
      { signedIn, csrf, section: 'admin' },
      auditPage({ events: result.events, filters, next, later: query.cursor !== undefined }),
    ),
  );
};
