import type { PresentedClient } from '@sched/clients/present';
import { LIMITS } from '@sched/clients/schemas';
import { describeScope } from '@sched/policy/scope-descriptions';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import { ownerLabel } from '../web/clients.ts';
import { pager } from '../web/pager.ts';
import { alert, formatDate, statusBadge } from '../web/shell.ts';
import { type Page, pageQueryString } from '../web/paging.ts';
import { adminNav } from './nav.ts';

export interface PendingClient {
  client: PresentedClient;
  ownerEmail: string | null;
}

export interface ReviewView {
  pending: readonly PendingClient[];
  /** Names of the pending clients' organizations. */
  organizations: ReadonlyMap<number, string>;
  page: Page;
  hasMore: boolean;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** A rejection that failed validation: which client, what was typed, why. */
  rejectError?: { clientId: string; reason: string; message: string } | undefined;
}

/** An action's path keeps the page, so the queue comes back where the administrator was. */
const actionPath = (clientId: string, action: 'approve' | 'reject', page: Page) =>
  `${PATHS.adminClients}/${encodeURIComponent(clientId)}/${action}${pageQueryString(page)}`;

/** Agents are marked: how they identified themselves (document or registration), and by which host. */
function registrationRow(client: PresentedClient): SafeHtml {
  if (client.registration === 'settings') return html``;
  const how =
    client.registration === 'metadata_document'
      ? html`Agent · client metadata document at <span class="mono">${URL.parse(client.id)?.host ?? client.id}</span>`
      : html`Agent · dynamic registration (no verified address)`;
  return html`<div class="kv"><dt>Registration</dt><dd><span class="badge">${client.registration}</span> ${how}</dd></div>`;
}

function pendingCard(item: PendingClient, view: ReviewView): SafeHtml {
  const { client } = item;
  const failed = view.rejectError?.clientId === client.id ? view.rejectError : undefined;
  const reasonId = `reason-${client.id}`;
  return html`<li class="review-card">
<div class="review-head">
<div><h2>${client.name}</h2><p class="muted mono">${client.id}</p></div>
${statusBadge(client.reviewStatus)}
</div>
<dl class="kvs compact">
${registrationRow(client)}
<div class="kv"><dt>Owner</dt><dd>${client.ownerUserId === null ? html`<span class="muted">None: the agent registered itself</span>` : ''}${item.ownerEmail ?? html`<span class="muted">unknown</span>`}${client.organizationId !== null ? html` <span class="muted">· ${ownerLabel(client.organizationId, view.organizations)}</span>` : ''}</dd></div>
<div class="kv"><dt>Type</dt><dd>${client.clientType === 'public' ? 'Public' : 'Confidential'} · submitted ${formatDate(client.updatedAt)}</dd></div>
<div class="kv"><dt>Redirect URIs</dt><dd><ul class="plain">${client.redirectUris.map((uri) => html`<li class="mono">${uri}</li>`)}</ul></dd></div>
${client.registration === 'settings' ? html`<div class="kv"><dt>Access</dt><dd><ul class="plain">${client.scopes.map((scope) => html`<li>${describeScope(scope)} <span class="scope-code inline">${scope}</span></li>`)}</ul></dd></div>` : html`<div class="kv"><dt>Access</dt><dd>While pending, users may give it only the pending scopes (read access); approving lets them give it any scope.</dd></div>`}
<div class="kv"><dt>Website</dt><dd>${client.websiteUrl ?? html`<span class="muted">Not set</span>`}</dd></div>
<div class="kv"><dt>Purpose</dt><dd>${client.purpose ?? html`<span class="muted">Not given</span>`}</dd></div>
</dl>
<div class="review-actions">
<form method="post" action="${actionPath(client.id, 'approve', view.page)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="primary">Approve</button>
</form>
<form method="post" action="${actionPath(client.id, 'reject', view.page)}" class="reject-form" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<label for="${reasonId}">Reason for rejecting</label>
<textarea id="${reasonId}" name="reason" rows="2" maxlength="${LIMITS.reason}" required${failed ? html` aria-invalid="true" aria-describedby="${reasonId}-error"` : ''}>${failed?.reason ?? ''}</textarea>
${failed ? html`<span class="field-error" id="${reasonId}-error">${failed.message}</span>` : ''}
<span class="hint">Sent to the owner by e-mail.</span>
<button type="submit" class="secondary">Reject</button>
</form>
</div>
</li>`;
}

export function reviewPage(view: ReviewView): SafeHtml {
  return html`${adminNav('review')}
<div class="page-head"><div><h1>Client review</h1>
<p class="lead">New and changed OAuth clients wait here, oldest first. Approving lets people authorize them; the owner is e-mailed either way.</p></div></div>
${alert('ok', view.notice)}
${alert('error', view.error)}
${
  view.pending.length > 0
    ? html`<ul class="review-list">${view.pending.map((item) => pendingCard(item, view))}</ul>`
    : view.page.skip > 0
      ? html`<div class="empty"><p><strong>Nothing on this page.</strong></p><p class="muted"><a href="${PATHS.adminClients}">Back to the oldest pending clients</a></p></div>`
      : html`<div class="empty"><p><strong>Nothing to review.</strong></p><p class="muted">Every client has been decided.</p></div>`
}
${pager({ path: PATHS.adminClients, page: view.page, shown: view.pending.length, hasMore: view.hasMore, back: 'Previous', forward: 'Next' })}`;
}
