import { BadRequestError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { z } from 'zod';
import type { Knex } from 'knex';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import type { SafeHtml } from '../pages/html.ts';
import { csrfFor, userPurpose } from '../web/forms.ts';
import { type Page, pageOf, pageSlice } from '../web/paging.ts';
import type { SignedIn } from '../web/session.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type SignedInHandler, signedInPage } from '../web/signed-in.ts';

/**
 * What every console section shares: who may use it (service administrators; anyone else signed
 * in gets 403, signed-out people the sign-in page), and reading its query and notices.
 */

export const CONSOLE_ADMIN_ONLY = 'Only service administrators may use the admin console';

export type AdminHandler = SignedInHandler;

function requireAdmin(signedIn: SignedIn): void {
  if (!signedIn.actor.serviceAdmin) throw new ForbiddenError(CONSOLE_ADMIN_ONLY);
}

/** A console page or action: signed in (else the sign-in page), then administrators only. */
export const adminPage = (deps: AuthDeps, handler: AdminHandler) =>
  signedInPage(deps, async (_deps, ctx, signedIn) => {
    requireAdmin(signedIn);
    await handler(deps, ctx, signedIn);
  });

/** `/auth/admin/`: the console opens on its users. */
export const consoleHome: AdminHandler = async (_deps, ctx) => seeOther(ctx, PATHS.adminUsers);

/** One optional, trimmed query value. */
export const single = (max: number) => z.string().trim().max(max).optional();

/** The query through `schema`; a repeated or malformed parameter is a 400 page. */
export function queryOf<T extends z.ZodType>(ctx: Context, schema: T): z.infer<T> {
  const parsed = schema.safeParse(ctx.query);
  if (!parsed.success)
    throw new BadRequestError(`Invalid ${String(parsed.error.issues[0]?.path[0] ?? 'query')}`);
  return parsed.data;
}

/** The fixed notice the `?notice=` after a redirect names (nothing user-supplied is shown). */
export const noticeOf = (ctx: Context, notices: Record<string, string>) =>
  typeof ctx.query.notice === 'string' ? notices[ctx.query.notice] : undefined;

/** A numeric id of the path (`:userId`, `:orgId`); anything else is simply not found. */
export function numericParam(ctx: Context, name: string, notFound: string): number {
  const raw = (ctx as Context & { params?: Record<string, string> }).params?.[name] ?? '';
  const id = /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new NotFoundError(notFound);
  return id;
}

const searchQuery = z.object({ q: single(200) });

/** What a searchable console list renders: one page of rows for `?q=`, and whether more follow. */
export interface SearchListView<Row> {
  items: Row[];
  q: string;
  page: Page;
  hasMore: boolean;
}

/**
 * A searchable, paged console list (users, organizations): `?q=` and `?page=` read and checked,
 * one row more than a page fetched to know whether a next page exists, the page in the shell.
 */
export function searchListPage<Row>(
  title: string,
  search: (knex: Knex, query: { q: string; skip: number; take: number }) => Promise<Row[]>,
  render: (view: SearchListView<Row>) => SafeHtml,
): AdminHandler {
  return async (deps, ctx, signedIn) => {
    const page = pageOf(ctx);
    const q = queryOf(ctx, searchQuery).q ?? '';
    const rows = await search(deps.runtime.stores.db.knex, { q, skip: page.skip, take: page.take + 1 });
    const { items, hasMore } = pageSlice(rows, page);
    const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
    sendSettingsPage(
      ctx,
      200,
      title,
      shell({ signedIn, csrf, section: 'admin' }, render({ items, q, page, hasMore })),
    );
  };
}
