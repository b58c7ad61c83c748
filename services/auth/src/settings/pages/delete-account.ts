import type { SoleOwnership } from '@sched/db/queries/account-deletion';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { alert } from '../../web/shell.ts';

export interface DeleteAccountView {
  csrf: string;
  email: string;
  /** Where the user is the last owner (deletion is refused until they hand these over). */
  soleOwnerOf: readonly SoleOwnership[];
  passwordError?: string | undefined;
  error?: string | undefined;
}

const ownershipItem = (ownership: SoleOwnership) =>
  html`<li>${ownership.kind === 'organization' ? 'Organization' : 'Team'} <strong>${ownership.name}</strong></li>`;

export function deleteAccountPage(view: DeleteAccountView): SafeHtml {
  const blocked = view.soleOwnerOf.length > 0;
  return html`<h1>Delete account</h1>
${alert('error', view.error)}
<div class="alert alert-warn" role="note">
<p><strong>This cannot be undone.</strong> Deleting the account ${view.email}:</p>
<ul>
<li>cancels every upcoming booking you host;</li>
<li>removes you from your organizations and teams;</li>
<li>revokes your API keys and signs out every app you connected and every browser;</li>
<li>deletes the OAuth clients you own, which signs out their users.</li>
</ul>
</div>
${
  blocked
    ? html`<section aria-labelledby="owner-title"><h2 id="owner-title">Hand over ownership first</h2>
<p>You are the last owner of:</p><ul>${view.soleOwnerOf.map(ownershipItem)}</ul>
<p class="muted small-text">Make someone else an owner, or delete them, then come back.</p></section>`
    : ''
}
<form method="post" action="${PATHS.settingsDeleteAccount}" class="delete-form" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="field">
<label for="password">Enter your password to confirm</label>
<input id="password" name="password" type="password" autocomplete="current-password" maxlength="256"${view.passwordError ? html` aria-invalid="true" aria-describedby="password-error"` : ''}>
${view.passwordError ? html`<span class="field-error" id="password-error">${view.passwordError}</span>` : ''}
</div>
<div class="form-actions">
<a class="button secondary" href="${PATHS.settingsProfile}">Cancel</a>
<button type="submit" class="danger">Delete my account</button>
</div>
</form>`;
}

/** After the deletion: no session any more, so a plain page. */
export function goodbyePage(): SafeHtml {
  return html`<h1>Your account was deleted</h1>
<p class="lead">Goodbye, and thank you for using Scheduling. You are signed out everywhere; your bookings as host were cancelled.</p>
<p><a href="${PATHS.settingsSignIn}">Sign in with another account</a></p>`;
}
