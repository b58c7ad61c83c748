import type { AdminOrganization } from '@sched/db/queries/admin-organizations';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import type { FieldErrors } from '../web/forms.ts';
import type { Page } from '../web/paging.ts';
import { alert, formatDate } from '../web/shell.ts';
import { adminNav, adminOrganizationPath } from './nav.ts';
import { filteredPager, inputField } from './widgets.ts';

/** The console's organization list (search by name or slug) and the create form. */

export interface OrganizationFormValues {
  name: string;
  slug: string;
  ownerEmail: string;
  pbacEnabled: boolean;
}

export const EMPTY_ORGANIZATION: OrganizationFormValues = {
  name: '',
  slug: '',
  ownerEmail: '',
  pbacEnabled: false,
};

export interface OrganizationListView {
  organizations: readonly AdminOrganization[];
  q: string;
  page: Page;
  hasMore: boolean;
}

export interface OrganizationFormView {
  csrf: string;
  form: OrganizationFormValues;
  errors: FieldErrors;
}

export const pbacBadge = (on: boolean) =>
  on ? html`<span class="badge badge-approved">PBAC on</span>` : html`<span class="badge">PBAC off</span>`;

/** GET /auth/admin/organizations/new, and its 400/404/409 re-renders. */
export function organizationFormPage(view: OrganizationFormView): SafeHtml {
  const { form, errors } = view;
  return html`${adminNav('organizations')}
<div class="page-head"><div><h1>New organization</h1>
<p class="lead">Its owner is an existing account; you do not become a member.</p></div></div>
${alert('error', errors.form)}
<form method="post" action="${PATHS.adminOrganizations}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="row">
${inputField({ id: 'org-name', name: 'name', label: 'Name', value: form.name, max: 200, error: errors.name })}
${inputField({ id: 'org-slug', name: 'slug', label: 'Slug', value: form.slug, max: 100, error: errors.slug, hint: 'Letters and digits, words separated by single dashes.' })}
</div>
${inputField({ id: 'org-owner', name: 'ownerEmail', label: 'Owner’s e-mail', type: 'email', value: form.ownerEmail, max: 254, error: errors.ownerEmail, hint: 'An existing account; it becomes the organization’s OWNER (accepted).' })}
<label class="check"><input type="checkbox" name="pbacEnabled" value="on"${form.pbacEnabled ? ' checked' : ''}> Turn on permission-based access control (PBAC)</label>
<div class="form-actions"><button type="submit" class="primary">Create organization</button>
<a class="button secondary" href="${PATHS.adminOrganizations}">Cancel</a></div>
</form>`;
}

export function organizationListPage(view: OrganizationListView): SafeHtml {
  const filters: Record<string, string> = view.q === '' ? {} : { q: view.q };
  return html`${adminNav('organizations')}
<div class="page-head"><div><h1>Organizations</h1>
<p class="lead">Find an organization by name or slug, newest first.</p></div>
<a class="button primary small" href="${PATHS.adminOrganizations}/new">New organization</a></div>
<form method="get" action="${PATHS.adminOrganizations}" class="row" role="search">
<div class="field"><label for="q">Name or slug</label>
<input type="search" id="q" name="q" value="${view.q}" maxlength="200"></div>
<div class="form-actions"><button type="submit" class="secondary">Search</button></div>
</form>
${
  view.organizations.length === 0
    ? html`<div class="empty"><p><strong>No organizations found.</strong></p></div>`
    : html`<table class="table"><thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Members</th><th scope="col">PBAC</th><th scope="col">Created</th></tr></thead><tbody>
${view.organizations.map(
  (
    org,
  ) => html`<tr><td><a href="${adminOrganizationPath(org.id)}">${org.name}</a></td><td class="mono">${org.slug}</td>
<td>${org.memberCount}</td><td>${pbacBadge(org.pbacEnabled)}</td><td>${formatDate(org.createdAt)}</td></tr>`,
)}
</tbody></table>`
}
${filteredPager(PATHS.adminOrganizations, view.page, view.organizations.length, view.hasMore, filters)}`;
}
