import type { AdminUser } from '@sched/db/queries/admin-users';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import type { Page } from '../web/paging.ts';
import { alert, formatDate } from '../web/shell.ts';
import { adminNav, adminUserPath, auditOf } from './nav.ts';
import { actionForm, filteredPager, yesNo } from './widgets.ts';

/** The console's user pages: search, and one account with its actions. */

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
<p><a href="${auditOf('user', user.id)}">This user's audit events</a></p>`;
}
