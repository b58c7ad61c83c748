import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { assertSignUpEnabled, registerAccount, type SignUpErrors } from '../interaction/sign-up.ts';
import { sendPage } from '../pages/layout.ts';
import { signUpPage } from '../pages/sign-up.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm } from '../web/forms.ts';
import { safeReturnPath, signedInUser, startSession } from '../web/session.ts';

/**
 * Sign-up outside an authorization request (the settings sign-in page's "Create account"): the same
 * form, rules, limits and verification e-mail as the authorization's sign-up step; the new user is
 * signed in (the authorization server's session) and lands on the settings page asked for.
 * SIGNUP_ENABLED=false: 403 page.
 */
export const SIGN_UP_PURPOSE = 'settings:sign-up';

function renderSignUp(
  deps: AuthDeps,
  ctx: Context,
  returnTo: string,
  status: number,
  extra: { values?: Record<string, string>; errors?: SignUpErrors } = {},
): void {
  sendPage(
    ctx,
    status,
    'Create account',
    signUpPage({
      uid: '',
      csrf: csrfFor(deps, ctx, SIGN_UP_PURPOSE),
      clientName: undefined,
      action: PATHS.settingsSignUp,
      hidden: { return: returnTo },
      lead: 'to manage your account and applications',
      signInHref: `${PATHS.settingsSignIn}?return=${encodeURIComponent(returnTo)}`,
      ...extra,
    }),
  );
}

/** GET /auth/settings/sign-up?return=: the form; someone already signed in goes straight back. */
export function showSettingsSignUp(deps: AuthDeps) {
  return async function showSettingsSignUpHandler(ctx: Context) {
    assertSignUpEnabled(deps);
    const returnTo = safeReturnPath(ctx.query.return);
    if (await signedInUser(deps, ctx)) return seeOther(ctx, returnTo);
    renderSignUp(deps, ctx, returnTo, 200);
  };
}

/** POST /auth/settings/sign-up: creates the account, sends the verification link, signs in. */
export function settingsSignUp(deps: AuthDeps) {
  return async function settingsSignUpHandler(ctx: Context) {
    assertSignUpEnabled(deps);
    const form = await readForm(deps, ctx, SIGN_UP_PURPOSE);
    const returnTo = safeReturnPath(form.return);
    const registered = await registerAccount(deps, ctx, form);
    if (!('user' in registered)) return renderSignUp(deps, ctx, returnTo, registered.status, registered);
    await startSession(deps, ctx, registered.user);
    seeOther(ctx, returnTo);
  };
}
