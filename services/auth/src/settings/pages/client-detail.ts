import type { PresentedClient, PresentedSecret } from '@sched/clients/present';
import { MAX_ACTIVE_SECRETS } from '@sched/clients/secrets';
import { describeScope } from '@sched/policy/scope-descriptions';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { clientPath } from './client-list.ts';
import { alert, formatDate, statusBadge } from '../../web/shell.ts';

export interface ClientDetailView {
  client: PresentedClient;
  /** Null for public clients. */
  secrets: readonly PresentedSecret[] | null;
  canManage: boolean;
  /** "Personal" or the organization's name. */
  owner: string;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** A secret to show once (just created or generated). */
  revealed?: { secret: string; hint: string } | undefined;
  /** The page was opened with a reveal link that was already used. */
  revealGone?: boolean;
}

function revealPanel(revealed: NonNullable<ClientDetailView['revealed']>): SafeHtml {
  return html`<section class="reveal" aria-labelledby="reveal-title">
<h2 id="reveal-title">Your new client secret</h2>
<p><strong>Copy it now: it will not be shown again.</strong> Store it where your server keeps its credentials. If you lose it, generate a new one and revoke this one.</p>
<div class="copy-row">
<input id="new-secret" class="mono" type="text" readonly value="${revealed.secret}" aria-label="Client secret" spellcheck="false">
<button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>
</div>
</section>`;
}

function secretsSection(view: ClientDetailView): SafeHtml {
  const { client, secrets } = view;
  if (secrets === null)
    return html`<section><h2>Client secrets</h2><p class="muted">Public clients do not use client secrets; they prove themselves with PKCE.</p></section>`;
  const full = secrets.length >= MAX_ACTIVE_SECRETS;
  return html`<section aria-labelledby="secrets-title">
<div class="section-head"><h2 id="secrets-title">Client secrets</h2>
${
  view.canManage
    ? html`<form method="post" action="${clientPath(client.id, '/secrets')}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="secondary small">Generate new secret</button>
</form>`
    : ''
}</div>
<p class="muted small-text">At most ${MAX_ACTIVE_SECRETS} active secrets, so you can rotate without downtime: generate a new one, deploy it, then revoke the old one.${full ? ' Both slots are in use.' : ''}</p>
<table class="table">
<thead><tr><th scope="col">Secret</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${secrets.map(
    (secret) => html`<tr>
<td class="mono">${secret.secretHint}</td>
<td>${formatDate(secret.createdAt)}</td>
<td class="cell-action">${
      view.canManage
        ? html`<form method="post" action="${clientPath(client.id, `/secrets/${secret.id}/revoke`)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="danger-link" aria-label="Revoke secret ${secret.secretHint}">Revoke</button>
</form>`
        : ''
    }</td>
</tr>`,
  )}</tbody>
</table>
</section>`;
}

export function clientDetailPage(view: ClientDetailView): SafeHtml {
  const { client } = view;
  const row = (label: string, value: SafeHtml | string) =>
    html`<div class="kv"><dt>${label}</dt><dd>${value}</dd></div>`;
  const none = html`<span class="muted">Not set</span>`;
  return html`<p class="crumbs"><a href="${PATHS.settingsClients}">OAuth clients</a></p>
<div class="page-head">
<div class="title-row"><h1>${client.name}</h1>${statusBadge(client.reviewStatus)}</div>
${
  view.canManage
    ? html`<div class="head-actions"><a class="button secondary" href="${clientPath(client.id, '/edit')}">Edit</a>
<a class="button danger" href="${clientPath(client.id, '/delete')}">Delete</a></div>`
    : ''
}
</div>
${alert('ok', view.notice)}
${alert('error', view.error)}
${view.revealed ? revealPanel(view.revealed) : ''}
${view.revealGone ? alert('warn', 'That secret was shown once and cannot be shown again. If you did not copy it, generate a new secret and revoke the old one.') : ''}
${client.reviewStatus === 'PENDING' ? alert('warn', 'Waiting for review by a service administrator. Until it is approved, people cannot authorize this client and it cannot obtain tokens.') : ''}
${client.reviewStatus === 'REJECTED' ? alert('error', html`<strong>Rejected:</strong> ${client.rejectionReason ?? ''} <span class="block-text">Edit the client to address this; saving resubmits it for review.</span>`) : ''}
${view.canManage ? '' : html`<p class="muted">You can see this client as a member of its organization; only its owner and the organization's admins can change it.</p>`}
<dl class="kvs">
${row('Client ID', html`<span class="mono">${client.id}</span>`)}
${row('Owner', client.organizationId === null ? view.owner : html`${view.owner} <span class="muted">(organization)</span>`)}
${row('Client type', client.clientType === 'public' ? 'Public (PKCE, no secret)' : 'Confidential')}
${row('Redirect URIs', html`<ul class="plain">${client.redirectUris.map((uri) => html`<li class="mono">${uri}</li>`)}</ul>`)}
${row('Access', html`<ul class="plain">${client.scopes.map((scope) => html`<li>${describeScope(scope)} <span class="scope-code inline">${scope}</span></li>`)}</ul>`)}
${row('Website', client.websiteUrl ?? none)}
${row('Logo', client.logo ?? none)}
${row('Purpose', client.purpose ?? none)}
${row('Created', formatDate(client.createdAt))}
</dl>
${secretsSection(view)}`;
}

export function deleteConfirmPage(client: PresentedClient, csrf: string): SafeHtml {
  return html`<p class="crumbs"><a href="${clientPath(client.id)}">${client.name}</a></p>
<h1>Delete ${client.name}?</h1>
<div class="alert alert-error" role="alert">This cannot be undone. The client, its secrets and every authorization people gave it are deleted; sign-ins and token refreshes stop at once.</div>
<form method="post" action="${clientPath(client.id, '/delete')}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<input type="hidden" name="confirm" value="yes">
<div class="form-actions">
<a class="button secondary" href="${clientPath(client.id)}">Keep it</a>
<button type="submit" class="danger">Delete client</button>
</div>
</form>`;
}
