import { presentClient, presentClients } from '@sched/clients/present';
import { suspendClient } from '@sched/clients/suspend';
import {
  findUserEmail,
  listClientsByReviewStatus,
  newestSecretHints,
} from '@sched/db/queries/oauth-client-management';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import { ConflictError, NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { clientIdOf, organizationsOf } from '../web/clients.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import { pageOf, pageSlice } from '../web/paging.ts';
import type { SignedIn } from '../web/session.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { clientDetailPage, clientListPage } from './clients-pages.ts';
import { type AdminHandler, noticeOf, queryOf } from './guard.ts';
import { adminClientPath } from './nav.ts';

/**
 * The console's OAuth clients: every client, filtered by review status; one client; suspending an
 * approved one (its tokens stop at once and it goes back to review), through `@sched/clients`.
 */

type Handler = AdminHandler;

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
