import { LIMITS } from '@sched/clients/schemas';
import { SCOPE_DESCRIPTIONS } from '@sched/policy/scope-descriptions';
import {
  type KnownScope,
  LEGACY_SCOPES,
  OIDC_SCOPES,
  ORG_SCOPES,
  TEAM_SCOPES,
  USER_SCOPES,
} from '@sched/policy/scopes';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import type { FieldErrors } from '../../web/forms.ts';
import { alert } from '../../web/shell.ts';

/** What the form shows: the submitted values after an error, the client's values on edit. */
export interface ClientFormValues {
  name: string;
  redirectUris: string;
  scopes: ReadonlySet<string>;
  clientType: 'confidential' | 'public';
  logo: string;
  websiteUrl: string;
  purpose: string;
  /** The owner select: '' for a personal client, else an organization id. */
  organizationId: string;
}

export const EMPTY_FORM: ClientFormValues = {
  name: '',
  redirectUris: '',
  scopes: new Set(),
  clientType: 'confidential',
  logo: '',
  websiteUrl: '',
  purpose: '',
  organizationId: '',
};

/** An organization the user may register a client for (accepted ADMIN or OWNER). */
export interface OwnerChoice {
  id: number;
  name: string;
}

export interface ClientFormView {
  mode: 'create' | 'edit';
  action: string;
  csrf: string;
  values: ClientFormValues;
  errors: FieldErrors;
  /** Edit of an approved client: saving reviewed fields sends it back to review. */
  approved?: boolean;
  rejected?: boolean;
  cancelHref: string;
  /** Create only: the organizations offered besides "Personal". */
  organizations?: readonly OwnerChoice[];
}

/** The form field name of a scope checkbox (one name per box: repeated form names are refused). */
export const scopeField = (scope: string) => `scope.${scope}`;

const GROUPS: ReadonlyArray<[string, readonly KnownScope[]]> = [
  ['Your own data', USER_SCOPES],
  ['Teams you belong to', TEAM_SCOPES],
  ['Your organization', ORG_SCOPES],
  ['Sign-in with this account (OpenID Connect)', OIDC_SCOPES],
];

function fieldError(errors: FieldErrors, field: string): SafeHtml | string {
  const message = errors[field];
  return message ? html`<span class="field-error" id="${field}-error">${message}</span>` : '';
}

const invalid = (errors: FieldErrors, field: string) =>
  errors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : '';

/** The owner is chosen once, at creation (the API has no way to move a client either). */
function ownerSelect(view: ClientFormView): SafeHtml {
  const { values, errors } = view;
  const option = (value: string, label: string) =>
    html`<option value="${value}"${values.organizationId === value ? ' selected' : ''}>${label}</option>`;
  return html`<div class="field">
<label for="organizationId">Owner</label>
<select id="organizationId" name="organizationId"${invalid(errors, 'organizationId')}>
${option('', 'Personal')}
${(view.organizations ?? []).map((org) => option(String(org.id), org.name))}
</select>
<span class="hint">An organization's client can be seen by all its members and changed by its admins and owners. It cannot be moved later.</span>
${fieldError(errors, 'organizationId')}
</div>`;
}

function scopeBoxes(values: ClientFormValues, mode: ClientFormView['mode']): SafeHtml {
  // Legacy scopes can be kept on edit (a legacy client) but never chosen anew.
  const legacy = mode === 'edit' ? LEGACY_SCOPES.filter((s) => values.scopes.has(s)) : [];
  const groups: Array<[string, readonly KnownScope[]]> = [...GROUPS];
  if (legacy.length > 0) groups.push(['Legacy (kept from before scopes existed)', legacy]);
  return html`${groups.map(
    ([title, scopes]) => html`<fieldset class="scope-group"><legend>${title}</legend>
<div class="scope-grid">${scopes.map(
      (
        scope,
      ) => html`<label class="check"><input type="checkbox" name="${scopeField(scope)}" value="on"${values.scopes.has(scope) ? ' checked' : ''}>
<span>${SCOPE_DESCRIPTIONS[scope]}<span class="scope-code">${scope}</span></span></label>`,
    )}</div></fieldset>`,
  )}`;
}

export function clientForm(view: ClientFormView): SafeHtml {
  const { values, errors } = view;
  const formError = errors.form;
  return html`${alert('error', formError ?? (Object.keys(errors).length > 0 ? 'Please correct the fields marked below.' : undefined))}
${view.approved ? alert('warn', 'This client is approved. Changing its name, logo, website, redirect URIs, purpose or scopes sends it back to review: it stops working for new sign-ins until an administrator approves it again.') : ''}
${view.rejected ? alert('warn', 'This client was rejected. Saving a change to a reviewed field resubmits it for review.') : ''}
<form method="post" action="${view.action}" class="client-form" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="field">
<label for="name">Application name</label>
<input id="name" name="name" type="text" maxlength="${LIMITS.name}" required value="${values.name}"${invalid(errors, 'name')}>
${fieldError(errors, 'name')}
</div>
${view.mode === 'create' ? ownerSelect(view) : ''}
<div class="field">
<label for="redirectUris">Redirect URIs</label>
<textarea id="redirectUris" name="redirectUris" rows="3" required spellcheck="false"${invalid(errors, 'redirectUris')}>${values.redirectUris}</textarea>
<span class="hint">One per line, up to ${LIMITS.redirectUris}. https, or http on localhost, 127.0.0.1 and [::1]. No fragments.</span>
${fieldError(errors, 'redirectUris')}
</div>
<div class="field">
<span class="label" id="scopes-label">What the application may do</span>
${fieldError(errors, 'scopes')}
${scopeBoxes(values, view.mode)}
</div>
${
  view.mode === 'create'
    ? html`<fieldset class="field choice"><legend class="label">Client type</legend>
<label class="check"><input type="radio" name="clientType" value="confidential"${values.clientType === 'confidential' ? ' checked' : ''}>
<span>Confidential<span class="hint">A server that can keep a client secret.</span></span></label>
<label class="check"><input type="radio" name="clientType" value="public"${values.clientType === 'public' ? ' checked' : ''}>
<span>Public<span class="hint">A browser or mobile app: no secret, PKCE required.</span></span></label>
${fieldError(errors, 'clientType')}
</fieldset>`
    : ''
}
<div class="row">
<div class="field">
<label for="websiteUrl">Website <span class="optional">optional</span></label>
<input id="websiteUrl" name="websiteUrl" type="text" inputmode="url" placeholder="https://" value="${values.websiteUrl}"${invalid(errors, 'websiteUrl')}>
${fieldError(errors, 'websiteUrl')}
</div>
<div class="field">
<label for="logo">Logo URL <span class="optional">optional</span></label>
<input id="logo" name="logo" type="text" inputmode="url" placeholder="https://" value="${values.logo}"${invalid(errors, 'logo')}>
${fieldError(errors, 'logo')}
</div>
</div>
<div class="field">
<label for="purpose">Purpose <span class="optional">optional</span></label>
<textarea id="purpose" name="purpose" rows="3" maxlength="${LIMITS.purpose}"${invalid(errors, 'purpose')}>${values.purpose}</textarea>
<span class="hint">Tell the reviewers what the application does with the access.</span>
${fieldError(errors, 'purpose')}
</div>
<div class="form-actions">
<a class="button secondary" href="${view.cancelHref}">Cancel</a>
<button type="submit" class="primary">${view.mode === 'create' ? 'Create client' : 'Save changes'}</button>
</div>
</form>`;
}
