import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { signInLinks } from '../../pages/sign-in.ts';
import { PATHS } from '../../paths.ts';

export interface SettingsSignInView {
  csrf: string;
  returnTo: string;
  email?: string;
  error?: string;
  /** SIGNUP_ENABLED=false: no "Create account" link. */
  signUpDisabled?: boolean;
}

export function settingsSignInPage(view: SettingsSignInView): SafeHtml {
  return html`<h1>Sign in</h1>
<p class="lead">to manage your account and applications</p>
${view.error ? html`<div class="alert alert-error" role="alert" id="signin-error">${view.error}</div>` : ''}
<form method="post" action="${PATHS.settingsSignIn}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<input type="hidden" name="return" value="${view.returnTo}">
<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${view.email ?? ''}"${view.error ? html` aria-describedby="signin-error"` : ''}>
</div>
<div class="field">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
</div>
<button type="submit" class="primary block">Sign in</button>
</form>
${signInLinks(view.signUpDisabled ? undefined : `${PATHS.settingsSignUp}?return=${encodeURIComponent(view.returnTo)}`)}`;
}
