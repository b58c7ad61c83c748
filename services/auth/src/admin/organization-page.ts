import type { Membership } from '@sched/db/queries/memberships';
import type { Organization } from '@sched/db/queries/organizations';
import { ROLES } from '@sched/policy/roles';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import type { FieldErrors } from '../web/forms.ts';
import type { Page } from '../web/paging.ts';
import { alert, formatDate } from '../web/shell.ts';
import { adminNav, adminOrganizationPath, auditOf } from './nav.ts';
import { pbacBadge } from './organizations-pages.ts';
import { filteredPager, inputField } from './widgets.ts';

/** One organization in the console: its PBAC switch and its members (provision, remove). */

export interface MemberFormValues {
  email: string;
  role: string;
}

export interface OrganizationView {
  organization: Organization;
  members: readonly Membership[];
  page: Page;
  hasMore: boolean;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
  memberForm: MemberFormValues;
  memberErrors: FieldErrors;
}

/** Who the member is, as far as the membership shows it (an invitation to an address has no account). */
const memberEmail = (member: Membership) => member.user?.email ?? member.invitedEmail ?? '';

function memberRow(view: OrganizationView, member: Membership): SafeHtml {
  const id = `member-${member.id}`;
  return html`<tr><td id="${id}">${memberEmail(member)}</td><td>${member.user?.name ?? ''}</td><td>${member.role}</td>
<td>${member.accepted ? html`<span class="badge badge-approved">Accepted</span>` : html`<span class="badge badge-pending">Pending</span>`}</td>
<td class="cell-action"><form method="post" action="${adminOrganizationPath(view.organization.id, `members/${member.id}/remove`)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="danger-link" aria-describedby="${id}">Remove</button>
</form></td></tr>`;
}

function provisionForm(view: OrganizationView): SafeHtml {
  const { memberForm: form, memberErrors: errors } = view;
  const roleError = errors.role;
  return html`<section aria-labelledby="add-title"><h2 id="add-title">Add a member</h2>
<p class="muted">The account is added as an accepted member at once (no invitation), as the admin API does.</p>
${alert('error', errors.form)}
<form method="post" action="${adminOrganizationPath(view.organization.id, 'members')}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="row">
${inputField({ id: 'member-email', name: 'email', label: 'E-mail', type: 'email', value: form.email, max: 254, error: errors.email })}
<div class="field"><label for="member-role">Role</label>
<select id="member-role" name="role"${roleError ? html` aria-invalid="true" aria-describedby="member-role-error"` : ''}>${ROLES.map(
    (role) =>
      html`<option value="${role}"${form.role.toUpperCase() === role ? html` selected` : ''}>${role}</option>`,
  )}</select>
${roleError ? html`<span class="field-error" id="member-role-error">${roleError}</span>` : ''}</div>
</div>
<div class="form-actions"><button type="submit" class="primary">Add member</button></div>
</form></section>`;
}

export function organizationPage(view: OrganizationView): SafeHtml {
  const { organization: org, csrf } = view;
  const path = adminOrganizationPath(org.id);
  return html`${adminNav('organizations')}
<div class="page-head"><div><h1>${org.name}</h1><p class="muted">Organization #${org.id} · <span class="mono">${org.slug}</span></p></div>${pbacBadge(org.pbacEnabled)}</div>
${alert('ok', view.notice)}
${alert('error', view.error)}
<dl class="kvs">
<div class="kv"><dt>Slug</dt><dd class="mono">${org.slug}</dd></div>
<div class="kv"><dt>PBAC</dt><dd>${org.pbacEnabled ? 'On: custom roles and their permissions apply' : 'Off: only the roles OWNER, ADMIN and MEMBER apply'}</dd></div>
<div class="kv"><dt>Created</dt><dd>${formatDate(org.createdAt)}</dd></div>
</dl>
<h2>Permission-based access control</h2>
<div class="admin-actions">
<form method="post" action="${adminOrganizationPath(org.id, 'pbac')}"><input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><input type="hidden" name="pbacEnabled" value="${org.pbacEnabled ? 'false' : 'true'}"><button type="submit" class="${org.pbacEnabled ? 'secondary' : 'primary'}">${org.pbacEnabled ? 'Turn PBAC off' : 'Turn PBAC on'}</button></form>
</div>
<p class="hint">Takes effect on the next request everywhere.</p>
<h2>Members</h2>
${
  view.members.length === 0
    ? html`<div class="empty"><p><strong>No members${view.page.skip > 0 ? ' on this page' : ''}.</strong></p></div>`
    : html`<table class="table" aria-label="Members"><thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
${view.members.map((member) => memberRow(view, member))}
</tbody></table>`
}
${filteredPager(path, view.page, view.members.length, view.hasMore, {})}
${provisionForm(view)}
<p><a href="${auditOf('organization', org.id)}">This organization's audit events</a></p>`;
}
