import { PASSWORD_MAX, PASSWORD_MIN } from '@sched/accounts/password-rules';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import type { FieldErrors } from '../../web/forms.ts';
import { alert } from '../../web/shell.ts';

export interface PasswordView {
  csrf: string;
  errors: FieldErrors;
  notice?: string | undefined;
}

function passwordField(view: PasswordView, name: string, label: string, autocomplete: string, hint = '') {
  const message = view.errors[name];
  return html`<div class="field">
<label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="password" autocomplete="${autocomplete}" maxlength="${PASSWORD_MAX}"${message ? html` aria-invalid="true" aria-describedby="${name}-error"` : ''}>
${hint ? html`<span class="hint">${hint}</span>` : ''}
${message ? html`<span class="field-error" id="${name}-error">${message}</span>` : ''}
</div>`;
}

export function passwordPage(view: PasswordView): SafeHtml {
  const hasErrors = Object.keys(view.errors).length > 0;
  return html`<h1>Password</h1>
<p class="lead">Changing your password signs you out on every other browser and device. This browser stays signed in.</p>
${alert('ok', view.notice)}
${alert('error', view.errors.form ?? (hasErrors ? 'Please correct the fields marked below.' : undefined))}
<form method="post" action="${PATHS.settingsPassword}" class="password-form" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
${passwordField(view, 'currentPassword', 'Current password', 'current-password')}
${passwordField(view, 'newPassword', 'New password', 'new-password', `At least ${PASSWORD_MIN} characters.`)}
${passwordField(view, 'confirmPassword', 'New password again', 'new-password')}
<div class="form-actions">
<button type="submit" class="primary">Change password</button>
</div>
</form>`;
}
