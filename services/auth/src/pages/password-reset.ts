import { CSRF_FIELD } from '../http/csrf.ts';
import { PATHS } from '../paths.ts';
import { html, type SafeHtml } from './html.ts';

const fieldError = (id: string, message: string | undefined) =>
  message ? html`<span class="field-error" id="${id}-error">${message}</span>` : '';
const describedBy = (id: string, message: string | undefined) =>
  message ? html` aria-describedby="${id}-error" aria-invalid="true"` : '';

/** "Forgot password?": the address to send a reset link to. */
export function forgotPasswordPage(view: { csrf: string; email?: string; error?: string }): SafeHtml {
  return html`<h1>Forgot password?</h1>
<p class="lead">Enter the email address of your account and we will send you a link to choose a new password.</p>
<form method="post" action="${PATHS.forgotPassword}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${view.email ?? ''}"${describedBy('email', view.error)}>
${fieldError('email', view.error)}
</div>
<button type="submit" class="primary block">Send reset link</button>
</form>
<p class="alt"><a href="${PATHS.settingsSignIn}">Back to sign in</a></p>`;
}

/** The answer to the address form: the same whether the address has an account or not. */
export function resetLinkSentPage(email: string): SafeHtml {
  return html`<h1>Check your email</h1>
<p class="lead">If an account uses ${email}, we sent it a link to choose a new password. The link works once, for 30 minutes.</p>
<p class="alt"><a href="${PATHS.settingsSignIn}">Back to sign in</a></p>`;
}

export type ResetField = 'password' | 'confirm';

/** The reset link's page: the new password, twice. */
export function resetPasswordPage(view: {
  csrf: string;
  token: string;
  email: string;
  errors?: Partial<Record<ResetField, string>>;
}): SafeHtml {
  const errors = view.errors ?? {};
  return html`<h1>Choose a new password</h1>
<p class="lead">for ${view.email}. Every session, API key and app authorization of the account ends.</p>
<form method="post" action="${PATHS.resetPassword}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<input type="hidden" name="token" value="${view.token}">
<input type="text" name="username" autocomplete="username" value="${view.email}" hidden>
<div class="field">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required autofocus${describedBy('password', errors.password)}>
${errors.password ? '' : html`<span class="hint">At least 8 characters</span>`}
${fieldError('password', errors.password)}
</div>
<div class="field">
<label for="confirm">Repeat new password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required${describedBy('confirm', errors.confirm)}>
${fieldError('confirm', errors.confirm)}
</div>
<button type="submit" class="primary block">Set new password</button>
</form>`;
}

/** A reset link that cannot be used (unknown, expired, used, or voided by a newer one). */
export function invalidResetLinkPage(): SafeHtml {
  return html`<h1>Link not valid</h1>
<div class="alert alert-error" role="alert">This password reset link is invalid, expired or already used.</div>
<p><a href="${PATHS.forgotPassword}">Ask for a new link</a></p>`;
}

export function passwordChangedPage(): SafeHtml {
  return html`<h1>Password changed</h1>
<p class="lead">Your new password is set and your email address is verified. Every session, API key and app authorization of the account has ended.</p>
<p class="alt"><a href="${PATHS.settingsSignIn}">Sign in</a></p>`;
}
