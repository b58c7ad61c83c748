import { disableAccount, enableAccount } from '@sched/accounts/disable';
import { sendResetEmail } from '@sched/accounts/password-reset';
import { presentClient, presentClients } from '@sched/clients/present';
import { suspendClient } from '@sched/clients/suspend';
import { findUserForAdmin, searchUsers } from '@sched/db/queries/admin-users';
import { type AuditCursor, listAuditEvents, recordAuditEvent } from '@sched/db/queries/audit-log';
import {
  listClientsByReviewStatus,
  findUserEmail,
  newestSecretHints,
} from '@sched/db/queries/oauth-client-management';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import { setServiceAdmin } from '@sched/db/queries/users';
import { transactionWithBumps } from '@sched/db/versions';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { clientIdOf, organizationsOf, signedInPage } from '../settings/clients.ts';
import { csrfFor, readForm, userPurpose } from '../settings/forms.ts';
import { sendSettingsPage, shell } from '../settings/pages/shell.ts';
import { pageOf, pageSlice } from '../settings/paging.ts';
import type { SignedIn } from '../settings/session.ts';
import {
  type AuditFilters,
  adminClientPath,
  adminUserPath,
  auditPage,
  clientDetailPage,
  clientListPage,
  filterQuery,
  userDetailPage,
  userListPage,
} from './console-pages.ts';

/**
 * The admin console (service administrators, /auth/admin/): users (search, view, disable and
 * enable, reset link, service administrator), every OAuth client (filter, view, suspend), the audit
 * log. Anyone else signed in gets 403; signed-out people the sign-in page. Every action is a POST
 * form with the CSRF token of the signed-in user, and is audited with that user as the actor.
 */

export const CONSOLE_ADMIN_ONLY = 'Only service administrators may use the admin console';

function requireAdmin(signedIn: SignedIn): void {
  if (!signedIn.actor.serviceAdmin) throw new ForbiddenError(CONSOLE_ADMIN_ONLY);
}

type Handler = (deps: AuthDeps, ctx: Context, signedIn: SignedIn) => Promise<void>;
/** A console page or action: signed in (else the sign-in page), then administrators only. */
export const adminPage = (deps: AuthDeps, handler: Handler) =>
  signedInPage(deps, async (_deps, ctx, signedIn) => {
    requireAdmin(signedIn);
    await handler(deps, ctx, signedIn);
  });

const single = (max: number) => z.string().trim().max(max).optional();

function queryOf<T extends z.ZodType>(ctx: Context, schema: T): z.infer<T> {
  const parsed = schema.safeParse(ctx.query);
  if (!parsed.success)
    throw new BadRequestError(`Invalid ${String(parsed.error.issues[0]?.path[0] ?? 'query')}`);
  return parsed.data;
}

const noticeOf = (ctx: Context, notices: Record<string, string>) =>
  typeof ctx.query.notice === 'string' ? notices[ctx.query.notice] : undefined;

// ---------------------------------------------------------------------------------------------
// Users

const userQuery = z.object({ q: single(200) });

export const usersList: Handler = async (deps, ctx, signedIn) => {
  const paging = pageOf(ctx);
  const q = queryOf(ctx, userQuery).q ?? '';
  const rows = await searchUsers(deps.runtime.stores.db.knex, {
    q,
    skip: paging.skip,
    take: paging.take + 1,
  });
  const { items, hasMore } = pageSlice(rows, paging);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    'Users',
    shell({ signedIn, csrf, section: 'admin' }, userListPage({ users: items, q, page: paging, hasMore })),
  );
};

function userIdOf(ctx: Context): number {
  const raw = (ctx as Context & { params?: Record<string, string> }).params?.userId ?? '';
  const id = /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('User not found');
  return id;
}

async function userOf(deps: AuthDeps, ctx: Context) {
  const user = await findUserForAdmin(deps.runtime.stores.db.knex, userIdOf(ctx));
  if (!user) throw new NotFoundError('User not found');
  return user;
}

const USER_NOTICES: Record<string, string> = {
  disabled: 'Account disabled. It is signed out everywhere; its app authorizations and API keys have ended.',
  enabled: 'Account enabled. It can sign in again.',
  'reset-link': 'Reset link sent to the account’s address.',
  'admin-granted': 'The user is a service administrator now.',
  'admin-removed': 'The user is no longer a service administrator.',
};

export const userDetail: Handler = async (deps, ctx, signedIn) => {
  const user = await userOf(deps, ctx);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    user.email,
    shell(
      { signedIn, csrf, section: 'admin' },
      userDetailPage({ user, self: user.id === signedIn.user.id, csrf, notice: noticeOf(ctx, USER_NOTICES) }),
    ),
  );
};

type UserAction = 'disable' | 'enable' | 'reset-link' | 'grant-admin' | 'remove-admin';

/** POST /auth/admin/users/:userId/<action>: the change, its audit event, back to the user's page. */
export const userAction =
  (action: UserAction): Handler =>
  async (deps, ctx, signedIn) => {
    const user = await userOf(deps, ctx);
    await readForm(deps, ctx, userPurpose(signedIn.user.id));
    const { runtime } = deps;
    const knex = runtime.stores.db.knex;
    const audit = signedIn.actor.audit;
    const self = user.id === signedIn.user.id;
    const event = (
      name: string,
      values: { before?: unknown; after?: unknown; details?: Record<string, unknown> },
    ) => recordAuditEvent(knex, audit, { action: name, targetType: 'user', targetId: user.id, ...values });
    let notice: string;
    switch (action) {
      case 'disable': {
        if (self) throw new ConflictError('You cannot disable your own account here');
        const done = await disableAccount(runtime, user.id);
        if (!done) throw new NotFoundError('User not found');
        // disableAccount runs its own steps (flag, then ending everything): the event follows it.
        await event('user.disabled', {
          before: { disabled: user.disabledAt !== null },
          after: { disabled: true },
          details: { changed: done.changed },
        });
        notice = 'disabled';
        break;
      }
      case 'enable': {
        const done = await enableAccount(runtime, user.id);
        if (!done) throw new NotFoundError('User not found');
        await event('user.enabled', {
          before: { disabled: user.disabledAt !== null },
          after: { disabled: false },
          details: { changed: done.changed },
        });
        notice = 'enabled';
        break;
      }
      case 'reset-link': {
        await sendResetEmail(runtime, user);
        await event('user.reset_link_sent', {});
        notice = 'reset-link';
        break;
      }
      case 'grant-admin':
      case 'remove-admin': {
        if (self) throw new ConflictError('You cannot change your own service administrator rights');
        const grant = action === 'grant-admin';
        await transactionWithBumps(knex, runtime.stores.tokenStore, async (trx, bumper) => {
          if (!(await setServiceAdmin(trx, bumper, user.id, grant)))
            throw new NotFoundError('User not found');
          await recordAuditEvent(trx, audit, {
            action: grant ? 'user.admin_granted' : 'user.admin_removed',
            targetType: 'user',
            targetId: user.id,
            before: { isServiceAdmin: user.isServiceAdmin },
            after: { isServiceAdmin: grant },
          });
        });
        notice = grant ? 'admin-granted' : 'admin-removed';
        break;
      }
    }
    seeOther(ctx, `${adminUserPath(user.id)}?notice=${notice}`);
  };

// ---------------------------------------------------------------------------------------------
// Clients

const clientQuery = z.object({ status: z.enum(['', 'PENDING', 'APPROVED', 'REJECTED']).optional() });

export const clientsList: Handler = async (deps, ctx, signedIn) => {
  const paging = pageOf(ctx);
  const status = queryOf(ctx, clientQuery).status ?? '';
  const knex = deps.runtime.stores.db.knex;
  const rows = await listClientsByReviewStatus(knex, {
    ...(status === '' ? {} : { status }),
    skip: paging.skip,
    take: paging.take + 1,
  });
  const { items, hasMore } = pageSlice(rows, paging);
  const clients = await presentClients(knex, items);
  const organizations = await organizationsOf(deps, clients);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    'All OAuth clients',
    shell(
      { signedIn, csrf, section: 'admin' },
      clientListPage({ clients, organizations, status, page: paging, hasMore }),
    ),
  );
};

const CLIENT_NOTICES: Record<string, string> = {
  suspended: 'Client suspended. Its tokens have stopped and it is back in review.',
};

async function renderClient(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  clientId: string,
  status: number,
  extra: { error?: string; suspendError?: { reason: string; message: string } } = {},
): Promise<void> {
  const knex = deps.runtime.stores.db.knex;
  const found = await findOAuthClient(knex, clientId);
  if (!found) throw new NotFoundError('OAuth client not found');
  const client = presentClient(found, (await newestSecretHints(knex, [found.id])).get(found.id));
  const organizations = await organizationsOf(deps, [client]);
  const ownerEmail = await findUserEmail(knex, client.ownerUserId);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  const notice = status === 200 ? noticeOf(ctx, CLIENT_NOTICES) : undefined;
  sendSettingsPage(
    ctx,
    status,
    client.name,
    shell(
      { signedIn, csrf, section: 'admin' },
      clientDetailPage({ client, ownerEmail, organizations, csrf, notice, ...extra }),
    ),
  );
}

export const clientDetail: Handler = (deps, ctx, signedIn) =>
  renderClient(deps, ctx, signedIn, clientIdOf(ctx), 200);

const suspendBody = z.object({
  reason: z.string().trim().min(1, 'a reason is required').max(2000, 'at most 2000 characters'),
});

export const suspendAction: Handler = async (deps, ctx, signedIn) => {
  const clientId = clientIdOf(ctx);
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const parsed = suspendBody.safeParse({ reason: form.reason ?? '' });
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? 'a reason is required';
    return renderClient(deps, ctx, signedIn, clientId, 400, {
      suspendError: { reason: form.reason ?? '', message },
    });
  }
  try {
    await suspendClient(deps.runtime, signedIn.actor, clientId, parsed.data.reason);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return renderClient(deps, ctx, signedIn, clientId, 409, { error: error.message });
  }
  seeOther(ctx, `${adminClientPath(clientId)}?notice=suspended`);
};

// ---------------------------------------------------------------------------------------------
// Audit log

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

const encodeCursor = (cursor: AuditCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decodeCursor(text: string): AuditCursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString()) as AuditCursor;
    if (
      typeof value.at === 'string' &&
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(value.at) &&
      Number.isSafeInteger(value.id)
    )
      return value;
  } catch {
    // below
  }
  throw new BadRequestError('Invalid cursor');
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
  const next = result.next ? filterQuery(filters, { cursor: encodeCursor(result.next) }) : null;
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
