import { BadRequestError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import type { SignedIn } from '../web/session.ts';
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
