import { CSRF_FIELD } from '../http/csrf.ts';
import { interactionPath, PATHS } from '../paths.ts';
import { html, type SafeHtml } from './html.ts';

export interface SignInView {
  uid: string;
  csrf: string;
  clientName: string | undefined;
  email?: string;
  error?: string;
  /** Onboarding embed: a Cancel button that closes the dialog (the page's script posts onboarding:close). */
  cancel?: boolean;
  /** Shown above the heading (the onboarding embed's progress). */
  header?: SafeHtml;
  /** SIGNUP_ENABLED=false: no "Create account" link. */
  signUpDisabled?: boolean;
}

/**
 * The links under every sign-in form: "Forgot password?" and (unless sign-up is off) "Create
 * account". In the onboarding embed the reset opens in a new tab: its pages may not be framed, and
 * the e-mail's link leads outside the frame anyway.
 */
export function signInLinks(
  signUpHref: string | undefined,
  options: { resetInNewTab?: boolean } = {},
): SafeHtml {
  const target = options.resetInNewTab ? html` target="_blank" rel="noopener"` : '';
  return html`<p class="alt"><a href="${PATHS.forgotPassword}"${target}>Forgot password?</a></p>
${signUpHref ? html`<p class="alt">New here? <a href="${signUpHref}">Create account</a></p>` : ''}`;
}

export function signInPage(view: SignInView): SafeHtml {
  const errorId = 'signin-error';
  const described = view.error ? errorId : undefined;
  return html`${view.header ?? ''}<h1>Sign in</h1>
<p class="lead">${view.clientName ? html`to continue to <strong>${view.clientName}</strong>` : 'to continue'}</p>
${view.error ? html`<div class="alert alert-error" role="alert" id="${errorId}">${view.error}</div>` : ''}
<form method="post" action="${interactionPath(view.uid, 'signin')}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${view.email ?? ''}"${described ? html` aria-describedby="${described}"` : ''}>
</div>
<div class="field">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described ? html` aria-describedby="${described}"` : ''}>
</div>
<button type="submit" class="primary block">Sign in</button>
</form>
${signInLinks(view.signUpDisabled ? undefined : interactionPath(view.uid, 'signup'), { resetInNewTab: view.cancel === true })}
${view.cancel ? html`<p class="cancel-row"><button type="button" class="link-button" data-embed-close>Cancel</button></p>` : ''}`;
}
