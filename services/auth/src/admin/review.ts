import { presentClients } from '@sched/clients/present';
import { approve, listForReview, reject } from '@sched/clients/review';
import { rejectBody } from '@sched/clients/schemas';
import { findUserEmail } from '@sched/db/queries/oauth-client-management';
import { ConflictError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { clientIdOf, organizationsOf } from '../web/clients.ts';
import { csrfFor, fieldErrorsOf, readForm, userPurpose } from '../web/forms.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type Page, pageOf, pageQueryString, pageSlice } from '../web/paging.ts';
import type { SignedIn } from '../web/session.ts';
import { adminPage } from './guard.ts';
import { type ReviewView, reviewPage } from './review-page.ts';

/**
 * /auth/admin/oauth-clients?skip=&take=: the review queue for service administrators
 * (users.is_service_admin), oldest first, a page at a time. Everyone else signed in gets 403, as
 * on every console page and as the admin API answers; the decisions go through `@sched/clients/review`, the same state
 * machine, audit entries and e-mails as the API's. An action comes back to the page it was on.
 */

const NOTICES: Record<string, string> = {
  approved: 'Client approved. The owner was e-mailed; people can authorize it now.',
  rejected: 'Client rejected. The owner was e-mailed the reason.',
};

async function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  paging: Page,
  status: number,
  extra: Pick<ReviewView, 'error' | 'rejectError'> = {},
): Promise<void> {
  const knex = deps.runtime.stores.db.knex;
  const rows = await listForReview(deps.runtime, signedIn.actor, {
    status: 'PENDING',
    skip: paging.skip,
    take: paging.take + 1,
  });
  const { items, hasMore } = pageSlice(rows, paging);
  const presented = await presentClients(knex, items);
  const organizations = await organizationsOf(deps, presented);
  const pending = await Promise.all(
    presented.map(async (client) => ({ client, ownerEmail: await findUserEmail(knex, client.ownerUserId) })),
  );
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  const notice =
    typeof ctx.query.notice === 'string' && status === 200 ? NOTICES[ctx.query.notice] : undefined;
  sendSettingsPage(
    ctx,
    status,
    'Client review',
    shell(
      { signedIn, csrf, section: 'review' },
      reviewPage({ pending, organizations, page: paging, hasMore, csrf, notice, ...extra }),
    ),
  );
}

export const reviewQueue = (deps: AuthDeps) =>
  adminPage(deps, async (_deps, ctx, signedIn) => {
    await render(deps, ctx, signedIn, pageOf(ctx), 200);
  });

export const approveAction = (deps: AuthDeps) =>
  adminPage(deps, async (_deps, ctx, signedIn) => {
    const clientId = clientIdOf(ctx);
    const paging = pageOf(ctx);
    await readForm(deps, ctx, userPurpose(signedIn.user.id));
    try {
      await approve(deps.runtime, signedIn.actor, clientId);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return render(deps, ctx, signedIn, paging, 409, { error: error.message });
    }
    seeOther(ctx, `${PATHS.adminClients}${pageQueryString(paging, { notice: 'approved' })}`);
  });

export const rejectAction = (deps: AuthDeps) =>
  adminPage(deps, async (_deps, ctx, signedIn) => {
    const clientId = clientIdOf(ctx);
    const paging = pageOf(ctx);
    const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
    const parsed = rejectBody.safeParse({ reason: form.reason ?? '' });
    if (!parsed.success) {
      const message = fieldErrorsOf(parsed.error).reason ?? 'a rejection reason is required';
      return render(deps, ctx, signedIn, paging, 400, {
        rejectError: { clientId, reason: form.reason ?? '', message },
      });
    }
    try {
      await reject(deps.runtime, signedIn.actor, clientId, parsed.data.reason);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return render(deps, ctx, signedIn, paging, 409, { error: error.message });
    }
    seeOther(ctx, `${PATHS.adminClients}${pageQueryString(paging, { notice: 'rejected' })}`);
  });
