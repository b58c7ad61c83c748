import type { PresentedClient } from '@sched/clients/present';
import { LIMITS } from '@sched/clients/schemas';
import type { AdminUser } from '@sched/db/queries/admin-users';
import type { AuditEvent } from '@sched/db/queries/audit-log';
import type { ClientReviewStatus } from '@sched/db/queries/oauth-clients';
import { describeScope } from '@sched/policy/scope-descriptions';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import { ownerLabel } from '../settings/pages/client-list.ts';
import { alert, formatDate, statusBadge } from '../settings/pages/shell.ts';
import { type Page, pageQueryString } from '../settings/paging.ts';

/** The admin console's pages (service administrators): users, every OAuth client, the audit log. */

export type AdminSection = 'users' | 'clients' | 'review' | 'audit';

/** The console's own navigation, above every admin page. */
export function adminNav(current: AdminSection): SafeHtml {
  const link = (section: AdminSection, href: string, label: string) =>
    html`<a href="${href}"${current === section ? html` class="current" aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs admin-nav" aria-label="Admin console">
${link('users', PATHS.adminUsers, 'Users')}
${link('clients', PATHS.adminAllClients, 'All clients')}
${link('review', PATHS.adminClients, 'Client review')}
${link('audit', PATHS.adminAudit, 'Audit log')}
</nav>`;
}

/** Previous / next links of a paged list that keep its filters. */
function filteredPager(
  path: string,
  page: Page,
  shown: number,
  hasMore: boolean,
  filters: Record<string, string>,
) {
  if (page.skip === 0 && !hasMore) return '';
  const to = (skip: number) => `${path}${pageQueryString({ skip, take: page.take }, filters)}`;
  return html`<nav class="pager" aria-label="Pages">
${page.skip > 0 ? html`<a class="button secondary small" rel="prev" href="${to(Math.max(0, page.skip - page.take))}">Previous</a>` : html`<span></span>`}
<span class="muted">Showing ${shown > 0 ? `${page.skip + 1}–${page.skip + shown}` : `nothing from ${page.skip + 1} on`}</span>
${hasMore ? html`<a class="button secondary small" rel="next" href="${to(page.skip + page.take)}">Next</a>` : html`<span></span>`}
</nav>`;
}

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
export const adminUserPath = (userId: number, action = '') =>
  `${PATHS.adminUsers}/${userId}${action ? `/${action}` : ''}`;
export const adminClientPath = (clientId: string, action = '') =>
  `${PATHS.adminAllClients}/${encodeURIComponent(clientId)}${action ? `/${action}` : ''}`;

// ---------------------------------------------------------------------------------------------
// Users

export interface UserListView {
  users: readonly AdminUser[];
  q: string;
  page: Page;
  hasMore: boolean;
}

export function userListPage(view: UserListView): SafeHtml {
  const filters: Record<string, string> = view.q === '' ? {} : { q: view.q };
  return html`${adminNav('users')}
<div class="page-head"><div><h1>Users</h1>
<p class="lead">Find an account by e-mail or name, newest first.</p></div></div>
<form method="get" action="${PATHS.adminUsers}" class="row" role="search">
<div class="field"><label for="q">E-mail or name</label>
<input type="search" id="q" name="q" value="${view.q}" maxlength="200"></div>
<div class="form-actions"><button type="submit" class="secondary">Search</button></div>
</form>
${
  view.users.length === 0
    ? html`<div class="empty"><p><strong>No users found.</strong></p></div>`
    : html`<table class="table"><thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">State</th><th scope="col">Created</th></tr></thead><tbody>
${view.users.map(
  (user) => html`<tr><td><a href="${adminUserPath(user.id)}">${user.email}</a></td><td>${user.name ?? ''}</td>
<td>${user.disabledAt ? html`<span class="badge badge-rejected">Disabled</span>` : html`<span class="badge badge-approved">Active</span>`}${user.isServiceAdmin ? html` <span class="badge badge-pending">Admin</span>` : ''}</td>
<td>${formatDate(user.createdAt)}</td></tr>`,
)}
</tbody></table>`
}
${filteredPager(PATHS.adminUsers, view.page, view.users.length, view.hasMore, filters)}`;
}

export interface UserDetailView {
  user: AdminUser;
  self: boolean;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
}

const actionForm = (
  path: string,
  csrf: string,
  label: string,
  kind: 'primary' | 'secondary' | 'danger' = 'secondary',
) =>
  html`<form method="post" action="${path}"><input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><button type="submit" class="${kind}">${label}</button></form>`;

export function userDetailPage(view: UserDetailView): SafeHtml {
  const { user, csrf } = view;
  return html`${adminNav('users')}
<div class="page-head"><div><h1>${user.name ?? user.email}</h1><p class="muted">User #${user.id}</p></div></div>
${alert('ok', view.notice)}
${alert('error', view.error)}
<dl class="kvs">
<div class="kv"><dt>E-mail</dt><dd>${user.email}</dd></div>
<div class="kv"><dt>Name</dt><dd>${user.name ?? html`<span class="muted">Not set</span>`}</dd></div>
<div class="kv"><dt>Verified</dt><dd>${user.emailVerifiedAt ? `Yes, ${formatDate(user.emailVerifiedAt)}` : 'No'}</dd></div>
<div class="kv"><dt>Disabled</dt><dd>${user.disabledAt ? `Yes, since ${formatDate(user.disabledAt)}` : 'No'}</dd></div>
<div class="kv"><dt>Service administrator</dt><dd>${yesNo(user.isServiceAdmin)}</dd></div>
<div class="kv"><dt>Created</dt><dd>${formatDate(user.createdAt)}</dd></div>
</dl>
<h2>Actions</h2>
<div class="admin-actions">
${
  user.disabledAt
    ? actionForm(adminUserPath(user.id, 'enable'), csrf, 'Enable account', 'primary')
    : view.self
      ? ''
      : actionForm(adminUserPath(user.id, 'disable'), csrf, 'Disable account', 'danger')
}
${actionForm(adminUserPath(user.id, 'reset-link'), csrf, 'Send reset link')}
${
  view.self
    ? html`<p class="muted">You cannot change your own administrator rights or disable yourself.</p>`
    : user.isServiceAdmin
      ? actionForm(adminUserPath(user.id, 'remove-admin'), csrf, 'Remove service administrator')
      : actionForm(adminUserPath(user.id, 'grant-admin'), csrf, 'Grant service administrator')
}
</div>
<p class="hint">Disabling signs the account out everywhere and ends its app authorizations and API keys at once; enabling lets it sign in again (nothing ended comes back).</p>
<p><a href="${PATHS.adminAudit}?targetType=user&amp;targetId=${user.id}">This user's audit events</a></p>`;
}

// ---------------------------------------------------------------------------------------------
// Clients

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
<p><a href="${PATHS.adminAudit}?targetType=oauth_client&amp;targetId=${encodeURIComponent(client.id)}">This client's audit events</a></p>`;
}

// ---------------------------------------------------------------------------------------------
// Audit log

export interface AuditFilters {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
}

export interface AuditView {
  events: readonly AuditEvent[];
  filters: AuditFilters;
  /** Query string of the next (older) page, when there is one. */
  next: string | null;
  /** Whether this is a later page (a link back to the newest). */
  later: boolean;
}

const actorLabel = (event: AuditEvent) => {
  const { actor } = event;
  if (actor.kind === 'system') return 'system';
  const user = actor.userId === null ? '' : `user #${actor.userId}`;
  if (actor.kind === 'api_key') return `${user} (API key #${actor.apiKeyId ?? '?'})`;
  if (actor.kind === 'oauth_client') return `${user || 'client'} (via ${actor.clientId ?? '?'})`;
  return user;
};

const jsonOf = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value));

export function auditPage(view: AuditView): SafeHtml {
  const field = (name: keyof AuditFilters, label: string) =>
    html`<div class="field"><label for="audit-${name}">${label}</label><input type="text" id="audit-${name}" name="${name}" value="${view.filters[name]}" maxlength="200"></div>`;
  return html`${adminNav('audit')}
<div class="page-head"><div><h1>Audit log</h1>
<p class="lead">Every recorded change, newest first.</p></div></div>
<form method="get" action="${PATHS.adminAudit}" class="row audit-filters">
${field('actor', 'Actor user id')}
${field('action', 'Action')}
${field('targetType', 'Target type')}
${field('targetId', 'Target id')}
<div class="form-actions"><button type="submit" class="secondary">Filter</button></div>
</form>
${
  view.events.length === 0
    ? html`<div class="empty"><p><strong>No events.</strong></p></div>`
    : html`<table class="table audit-table"><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Details</th></tr></thead><tbody>
${view.events.map(
  (
    event,
  ) => html`<tr><td class="mono nowrap">${event.createdAt.toISOString().replace('T', ' ').slice(0, 19)}</td>
<td class="mono nowrap">${event.action}</td><td>${actorLabel(event)}</td>
<td class="mono">${event.targetType}${event.targetId === null ? '' : ` ${event.targetId}`}</td>
<td class="mono audit-details">${[jsonOf(event.details) === '{}' ? '' : jsonOf(event.details), event.before != null ? ` before ${jsonOf(event.before)}` : '', event.after != null ? ` after ${jsonOf(event.after)}` : '']}</td></tr>`,
)}
</tbody></table>`
}
<nav class="pager" aria-label="Pages">
${view.later ? html`<a class="button secondary small" href="${PATHS.adminAudit}${filterQuery(view.filters)}">Newest</a>` : html`<span></span>`}
<span></span>
${view.next ? html`<a class="button secondary small" rel="next" href="${PATHS.adminAudit}${view.next}">Older</a>` : html`<span></span>`}
</nav>`;
}

/** `?actor=..&action=..` of the filters that are set. */
export function filterQuery(filters: AuditFilters, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== '') query.set(key, value);
  for (const [key, value] of Object.entries(extra)) query.set(key, value);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
