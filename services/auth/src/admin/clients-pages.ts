import type { PresentedClient } from '@sched/clients/present';
import { LIMITS } from '@sched/clients/schemas';
import type { ClientReviewStatus } from '@sched/db/queries/oauth-clients';
import { describeScope } from '@sched/policy/scope-descriptions';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import { ownerLabel } from '../web/clients.ts';
import type { Page } from '../web/paging.ts';
import { alert, formatDate, statusBadge } from '../web/shell.ts';
import { adminClientPath, adminNav, auditOf } from './nav.ts';
import { actionForm, filteredPager } from './widgets.ts';

/** The console's client pages: every OAuth client by review status, and one with its suspension. */

export interface ClientListView {
  clients: readonly PresentedClient[];
  organizations: ReadonlyMap<number, string>;
  status: ClientReviewStatus | '';
  page: Page;
  hasMore: boolean;
}

const STATUS_CHOICES: Array<[ClientReviewStatus | '', string]> = [
  ['', 'Any'],
  ['PENDING', 'In review'],
  ['APPROVED', 'Approved'],
  ['REJECTED', 'Rejected'],
];

export function clientListPage(view: ClientListView): SafeHtml {
  const filters: Record<string, string> = view.status === '' ? {} : { status: view.status };
  return html`${adminNav('clients')}
<div class="page-head"><div><h1>All OAuth clients</h1>
<p class="lead">Every registered client, oldest first.</p></div></div>
<form method="get" action="${PATHS.adminAllClients}" class="row">
<div class="field"><label for="status">Review status</label>
<select id="status" name="status">${STATUS_CHOICES.map(
    ([value, label]) =>
      html`<option value="${value}"${view.status === value ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
<div class="form-actions"><button type="submit" class="secondary">Filter</button></div>
</form>
${
  view.clients.length === 0
    ? html`<div class="empty"><p><strong>No clients.</strong></p></div>`
    : html`<ul class="client-list">${view.clients.map(
        (client) => html`<li><a class="client-row" href="${adminClientPath(client.id)}">
<span class="client-main"><strong>${client.name}</strong><span class="muted mono">${client.id}</span></span>
<span class="client-meta">${statusBadge(client.reviewStatus)}<span class="owner-tag">${ownerLabel(client.organizationId, view.organizations)}</span><span class="muted">${client.clientType === 'public' ? 'Public' : 'Confidential'} · created ${formatDate(client.createdAt)}</span></span>
</a></li>`,
      )}</ul>`
}
${filteredPager(PATHS.adminAllClients, view.page, view.clients.length, view.hasMore, filters)}`;
}

export interface ClientDetailView {
  client: PresentedClient;
  ownerEmail: string | null;
  organizations: ReadonlyMap<number, string>;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
  suspendError?: { reason: string; message: string } | undefined;
}

export function clientDetailPage(view: ClientDetailView): SafeHtml {
  const { client, csrf } = view;
  const failed = view.suspendError;
  return html`${adminNav('clients')}
<div class="page-head"><div><h1>${client.name}</h1><p class="muted mono">${client.id}</p></div>${statusBadge(client.reviewStatus)}</div>
${alert('ok', view.notice)}
${alert('error', view.error)}
<dl class="kvs">
<div class="kv"><dt>Owner</dt><dd>${view.ownerEmail ?? html`<span class="muted">unknown</span>`} <span class="muted">· ${ownerLabel(client.organizationId, view.organizations)}</span></dd></div>
<div class="kv"><dt>Type</dt><dd>${client.clientType === 'public' ? 'Public' : 'Confidential'} · created ${formatDate(client.createdAt)}</dd></div>
<div class="kv"><dt>Redirect URIs</dt><dd><ul class="plain">${client.redirectUris.map((uri) => html`<li class="mono">${uri}</li>`)}</ul></dd></div>
<div class="kv"><dt>Access</dt><dd><ul class="plain">${client.scopes.map((scope) => html`<li>${describeScope(scope)} <span class="scope-code inline">${scope}</span></li>`)}</ul></dd></div>
<div class="kv"><dt>Website</dt><dd>${client.websiteUrl ?? html`<span class="muted">Not set</span>`}</dd></div>
<div class="kv"><dt>Purpose</dt><dd>${client.purpose ?? html`<span class="muted">Not given</span>`}</dd></div>
${client.reviewStatus === 'REJECTED' && client.rejectionReason ? html`<div class="kv"><dt>Rejected</dt><dd>${client.rejectionReason}</dd></div>` : ''}
</dl>
${
  client.reviewStatus === 'APPROVED'
    ? html`<h2>Suspend</h2>
<form method="post" action="${adminClientPath(client.id, 'suspend')}" class="reject-form" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="reason">Reason for suspending</label>
<textarea id="reason" name="reason" rows="2" maxlength="${LIMITS.reason}" required${failed ? html` aria-invalid="true" aria-describedby="reason-error"` : ''}>${failed?.reason ?? ''}</textarea>
${failed ? html`<span class="field-error" id="reason-error">${failed.message}</span>` : ''}
<span class="hint">Every token of the client stops at once and it goes back to review: nobody can authorize it until it is approved again.</span>
<button type="submit" class="danger">Suspend</button>
</form>`
    : client.reviewStatus === 'PENDING'
      ? html`<h2>Review</h2><div class="admin-actions">${actionForm(`${PATHS.adminClients}/${encodeURIComponent(client.id)}/approve`, csrf, 'Approve', 'primary')}</div>
<p class="hint">Rejecting (with a reason for the owner) is on the <a href="${PATHS.adminClients}">review queue</a>.</p>`
      : ''
}
<p><a href="${auditOf('oauth_client', client.id)}">This client's audit events</a></p>`;
}
