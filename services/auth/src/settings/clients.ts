import { VERIFY_FIRST_MESSAGE } from '@sched/accounts/verification';
import { createClient, deleteClient, getClient, listClients, updateClient } from '@sched/clients/operations';
import { presentClients, presentOne, presentSecret } from '@sched/clients/present';
import { clientFor, rightsOn } from '@sched/clients/rights';
import { listSecrets } from '@sched/clients/secrets';
import { organizationsAdministeredBy } from '@sched/db/queries/oauth-client-management';
import { AppError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { html } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import { parseCreateForm, parseUpdateForm, formValues, valuesOf } from './client-input.ts';
import { csrfFor, type FieldErrors, onForm, readForm, userPurpose } from '../web/forms.ts';
import { clientDetailPage, deleteConfirmPage } from './pages/client-detail.ts';
import { type ClientFormValues, type ClientFormView, clientForm, EMPTY_FORM } from './pages/client-form.ts';
import { clientListPage, clientPath } from './pages/client-list.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { pageOf, pageSlice } from '../web/paging.ts';
import { takeReveal, keepForReveal } from '../web/reveal.ts';
import { enforceUserRouteLimit } from '../web/route-limit.ts';
import { clientIdOf, organizationsOf, ownerLabel } from '../web/clients.ts';
import type { SignedIn } from '../web/session.ts';
import type { SignedInHandler } from '../web/signed-in.ts';

/** Fixed notices after a redirect (the query names one; nothing user-supplied is shown). */
const NOTICES: Record<string, string> = {
  created: 'Client created. A service administrator reviews it before people can use it.',
  updated: 'Changes saved.',
  review:
    'Changes saved. The client went back to review: it does not work for new sign-ins until it is approved again.',
  resubmitted: 'Changes saved. The client was resubmitted for review.',
  'secret-created': 'New secret generated.',
  'secret-revoked': 'Secret revoked. It stopped working at once.',
  deleted: 'Client deleted.',
};

export const noticeOf = (ctx: Context): string | undefined => {
  const key = ctx.query.notice;
  return typeof key === 'string' && Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
};

type Handler = SignedInHandler;

const page = (deps: AuthDeps, ctx: Context, signedIn: SignedIn) => ({
  csrf: csrfFor(deps, ctx, userPurpose(signedIn.user.id)),
});

export const listPage: Handler = async (deps, ctx, signedIn) => {
  const paging = pageOf(ctx);
  const knex = deps.runtime.stores.db.knex;
  const { csrf } = page(deps, ctx, signedIn);
  // What the API's GET /v2/oauth-clients lists, one page of it (one more row tells whether a next page exists).
  const rows = await listClients(deps.runtime, signedIn.actor, {
    skip: paging.skip,
    take: paging.take + 1,
  });
  const { items, hasMore } = pageSlice(rows, paging);
  const clients = await presentClients(knex, items);
  const organizations = await organizationsOf(deps, clients);
  sendSettingsPage(
    ctx,
    200,
    'OAuth clients',
    shell(
      { signedIn, csrf, section: 'clients' },
      clientListPage({ clients, organizations, page: paging, hasMore, notice: noticeOf(ctx) }),
    ),
  );
};

function sendForm(
  ctx: Context,
  signedIn: SignedIn,
  status: number,
  title: string,
  view: ClientFormView,
): void {
  sendSettingsPage(
    ctx,
    status,
    title,
    shell({ signedIn, csrf: view.csrf, section: 'clients' }, clientFormPage(title, view)),
  );
}

const clientFormPage = (title: string, view: ClientFormView) =>
  html`<p class="crumbs"><a href="${PATHS.settingsClients}">OAuth clients</a></p><h1>${title}</h1>
<p class="lead">${view.mode === 'create' ? 'Register an application. It can sign people in once a service administrator approves it.' : 'Change how your application is registered.'}</p>
${clientForm(view)}`;

const NEW_TITLE = 'New OAuth client';

/** The create form; the owner select offers the organizations the user administers. */
async function createView(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  values: ClientFormValues,
  errors: FieldErrors,
): Promise<ClientFormView> {
  return {
    mode: 'create',
    action: PATHS.settingsClients,
    csrf: page(deps, ctx, signedIn).csrf,
    values,
    errors,
    cancelHref: PATHS.settingsClients,
    organizations: await organizationsAdministeredBy(deps.runtime.stores.db.knex, signedIn.user.id),
  };
}

/** An unverified account cannot register clients (the API answers 403): the form says so up front. */
const unverified = (signedIn: SignedIn): FieldErrors | undefined =>
  signedIn.user.emailVerifiedAt ? undefined : { form: `${VERIFY_FIRST_MESSAGE}.` };

export const newPage: Handler = async (deps, ctx, signedIn) => {
  const errors = unverified(signedIn) ?? {};
  sendForm(ctx, signedIn, 200, NEW_TITLE, await createView(deps, ctx, signedIn, EMPTY_FORM, errors));
};

export const create: Handler = async (deps, ctx, signedIn) => {
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const refused = async (status: number, errors: FieldErrors) =>
    sendForm(
      ctx,
      signedIn,
      status,
      NEW_TITLE,
      await createView(deps, ctx, signedIn, formValues(form), errors),
    );
  const notVerified = unverified(signedIn);
  if (notVerified) return refused(403, notVerified);
  const parsed = parseCreateForm(form);
  if (!parsed.ok) return refused(parsed.status, parsed.errors);
  const { input } = parsed;
  await enforceUserRouteLimit(deps, signedIn.user.id, 'oauth-clients', 'OAuth clients created');
  // An organization that does not exist (404) or that the user may not use (403) is the owner
  // field's error: the select offers only allowed ones, so a membership changed meanwhile or the
  // form was made by hand.
  const created = await onForm(
    () => createClient(deps.runtime, signedIn.actor, input),
    (error) =>
      input.organizationId !== undefined && (error.status === 403 || error.status === 404)
        ? 'organizationId'
        : undefined,
  );
  if (!created.ok) return refused(created.status, created.errors);
  const { client, secret } = created.value;
  const query = new URLSearchParams({ notice: 'created' });
  if (secret) {
    query.set(
      'reveal',
      await keepForReveal(deps, {
        userId: signedIn.user.id,
        clientId: client.id,
        secret: secret.plain,
        hint: secret.hint,
      }),
    );
  }
  seeOther(ctx, `${clientPath(client.id)}?${query}`);
};

/** The client's page, optionally with an error (400/409 of an action) instead of a redirect. */
export async function renderDetail(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  clientId: string,
  options: { status?: number; error?: string } = {},
): Promise<void> {
  const knex = deps.runtime.stores.db.knex;
  const client = await getClient(deps.runtime, signedIn.actor, clientId);
  const rights = await rightsOn(knex, signedIn.actor, client);
  const secrets =
    client.clientType === 'public'
      ? null
      : (await listSecrets(deps.runtime, signedIn.actor, client.id)).map(presentSecret);
  const revealId = typeof ctx.query.reveal === 'string' ? ctx.query.reveal : undefined;
  const revealed = revealId ? await takeReveal(deps, revealId, signedIn.user.id, client.id) : null;
  const { csrf } = page(deps, ctx, signedIn);
  const presented = await presentOne(knex, client);
  const organizations = await organizationsOf(deps, [client]);
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    client.name,
    shell(
      { signedIn, csrf, section: 'clients' },
      clientDetailPage({
        client: presented,
        secrets,
        canManage: rights.manage,
        owner: ownerLabel(client.organizationId, organizations),
        csrf,
        notice: options.error ? undefined : noticeOf(ctx),
        error: options.error,
        revealed: revealed ?? undefined,
        revealGone: revealId !== undefined && revealed === null,
      }),
    ),
    { copyScript: revealed !== null },
  );
}

export const detailPage: Handler = (deps, ctx, signedIn) =>
  renderDetail(deps, ctx, signedIn, clientIdOf(ctx));

/** The client if the user may change it: 404 when they cannot see it, 403 when they can only see it (as the API). */
const manageable = (deps: AuthDeps, signedIn: SignedIn, clientId: string) =>
  clientFor(deps.runtime.stores.db.knex, signedIn.actor, clientId, 'manage');

export const editPage: Handler = async (deps, ctx, signedIn) => {
  const client = await manageable(deps, signedIn, clientIdOf(ctx));
  const { csrf } = page(deps, ctx, signedIn);
  sendForm(ctx, signedIn, 200, `Edit ${client.name}`, {
    mode: 'edit',
    action: clientPath(client.id),
    csrf,
    values: valuesOf(client),
    errors: {},
    approved: client.reviewStatus === 'APPROVED',
    rejected: client.reviewStatus === 'REJECTED',
    cancelHref: clientPath(client.id),
  });
};

export const update: Handler = async (deps, ctx, signedIn) => {
  const clientId = clientIdOf(ctx);
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const client = await manageable(deps, signedIn, clientId);
  const { csrf } = page(deps, ctx, signedIn);
  const view = (errors: FieldErrors): ClientFormView => ({
    mode: 'edit',
    action: clientPath(client.id),
    csrf,
    values: { ...formValues(form, client.clientType), clientType: client.clientType },
    errors,
    approved: client.reviewStatus === 'APPROVED',
    rejected: client.reviewStatus === 'REJECTED',
    cancelHref: clientPath(client.id),
  });
  const parsed = parseUpdateForm(form);
  if (!parsed.ok) return sendForm(ctx, signedIn, parsed.status, `Edit ${client.name}`, view(parsed.errors));
  const input = parsed.input;
  const saved = await onForm(() => updateClient(deps.runtime, signedIn.actor, client.id, input));
  if (!saved.ok) return sendForm(ctx, signedIn, saved.status, `Edit ${client.name}`, view(saved.errors));
  const outcome = saved.value;
  const to = outcome.client.reviewStatus;
  const notice =
    outcome.statusFrom === 'APPROVED' && to === 'PENDING'
      ? 'review'
      : outcome.statusFrom === 'REJECTED' && to === 'PENDING'
        ? 'resubmitted'
        : 'updated';
  seeOther(ctx, `${clientPath(client.id)}?notice=${notice}`);
};

export const deletePage: Handler = async (deps, ctx, signedIn) => {
  const client = await manageable(deps, signedIn, clientIdOf(ctx));
  const { csrf } = page(deps, ctx, signedIn);
  const presented = await presentOne(deps.runtime.stores.db.knex, client);
  sendSettingsPage(
    ctx,
    200,
    `Delete ${client.name}`,
    shell({ signedIn, csrf, section: 'clients' }, deleteConfirmPage(presented, csrf)),
  );
};

export const remove: Handler = async (deps, ctx, signedIn) => {
  const clientId = clientIdOf(ctx);
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  // The confirmation step: the form of the confirmation page says so; a bare POST does not delete.
  if (form.confirm !== 'yes') return seeOther(ctx, clientPath(clientId, '/delete'));
  await deleteClient(deps.runtime, signedIn.actor, clientId);
  seeOther(ctx, `${PATHS.settingsClients}?notice=deleted`);
};

/** Library errors a page shows on the client's page instead of an error page. */
export const isShownOnPage = (error: unknown): error is AppError =>
  error instanceof AppError && (error.status === 400 || error.status === 409);
