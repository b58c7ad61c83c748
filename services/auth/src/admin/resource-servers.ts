import { recordAuditEvent } from '@sched/db/queries/audit-log';
import {
  createResourceServer,
  deleteResourceServer,
  findResourceServer,
  listResourceServers,
} from '@sched/db/queries/resource-servers';
import { NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, type FieldErrors, fieldErrorsOf, readForm, userPurpose } from '../web/forms.ts';
import { keepForReveal, takeReveal } from '../web/reveal.ts';
import type { SignedIn } from '../web/session.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type AdminHandler, noticeOf } from './guard.ts';
import { adminResourceServerPath } from './nav.ts';
import {
  type ResourceServerFormValues,
  resourceServerListPage,
  resourceServerPage,
} from './resource-servers-pages.ts';

/**
 * The console's resource servers (what `POST/GET/DELETE /v2/admin/resource-servers` do, through the
 * same data-layer calls): register one (its secret, stored as a hash, is shown once on the page
 * the POST redirects to, like a new client secret in the settings), list them, delete one (its
 * credentials stop at once: introspection reads the row on every call). Audited as
 * `resource_server.created` and `.deleted` in the change's transaction.
 */

const NOTICES: Record<string, string> = {
  deleted: 'Resource server deleted. Its credentials no longer work.',
};

const EMPTY_FORM: ResourceServerFormValues = { name: '', description: '' };

async function renderList(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  status: number,
  form: ResourceServerFormValues = EMPTY_FORM,
  errors: FieldErrors = {},
): Promise<void> {
  const servers = await listResourceServers(deps.runtime.stores.db.knex);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  const notice = status === 200 ? noticeOf(ctx, NOTICES) : undefined;
  sendSettingsPage(
    ctx,
    status,
    'Resource servers',
    shell(
      { signedIn, csrf, section: 'admin' },
      resourceServerListPage({ servers, csrf, notice, form, errors }),
    ),
  );
}

export const resourceServersList: AdminHandler = (deps, ctx, signedIn) =>
  renderList(deps, ctx, signedIn, 200);

const createBody = z.object({
  name: z.string().trim().min(1, 'a name is required').max(200, 'at most 200 characters'),
  description: z.string().trim().max(1000, 'at most 1000 characters'),
});

export const createResourceServerAction: AdminHandler = async (deps, ctx, signedIn) => {
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const values: ResourceServerFormValues = { name: form.name ?? '', description: form.description ?? '' };
  const parsed = createBody.safeParse(values);
  if (!parsed.success) return renderList(deps, ctx, signedIn, 400, values, fieldErrorsOf(parsed.error));
  const { server, secret } = await deps.runtime.stores.db.knex.transaction(async (trx) => {
    const made = await createResourceServer(trx, {
      name: parsed.data.name,
      description: parsed.data.description || null,
      createdByUserId: signedIn.user.id,
    });
    await recordAuditEvent(trx, signedIn.actor.audit, {
      action: 'resource_server.created',
      targetType: 'resource_server',
      targetId: made.server.id,
      after: { name: made.server.name, description: made.server.description },
    });
    return made;
  });
  const reveal = await keepForReveal(deps, {
    userId: signedIn.user.id,
    clientId: server.id,
    secret: secret.plain,
    hint: server.secretHint,
  });
  seeOther(ctx, `${adminResourceServerPath(server.id)}?reveal=${encodeURIComponent(reveal)}`);
};

const serverIdOf = (ctx: Context) =>
  (ctx as Context & { params?: Record<string, string> }).params?.serverId ?? '';

export const resourceServerDetail: AdminHandler = async (deps, ctx, signedIn) => {
  const server = await findResourceServer(deps.runtime.stores.db.knex, serverIdOf(ctx));
  if (!server) throw new NotFoundError('Resource server not found');
  const revealId = typeof ctx.query.reveal === 'string' ? ctx.query.reveal : undefined;
  const revealed = revealId ? await takeReveal(deps, revealId, signedIn.user.id, server.id) : null;
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    server.name,
    shell(
      { signedIn, csrf, section: 'admin' },
      resourceServerPage({
        server,
        csrf,
        revealed: revealed?.secret,
        revealGone: revealId !== undefined && revealed === null,
      }),
    ),
    { copyScript: revealed !== null },
  );
};

export const deleteResourceServerAction: AdminHandler = async (deps, ctx, signedIn) => {
  const id = serverIdOf(ctx);
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const deleted = await deps.runtime.stores.db.knex.transaction(async (trx) => {
    if (!(await deleteResourceServer(trx, id))) return false;
    await recordAuditEvent(trx, signedIn.actor.audit, {
      action: 'resource_server.deleted',
      targetType: 'resource_server',
      targetId: id,
    });
    return true;
  });
  if (!deleted) throw new NotFoundError('Resource server not found');
  seeOther(ctx, `${PATHS.adminResourceServers}?notice=deleted`);
};
