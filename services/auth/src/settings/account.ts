import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { checkSignIn } from '../interaction/sign-in.ts';
import { sendPage } from '../pages/layout.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm, SIGN_IN_PURPOSE, userPurpose } from '../web/forms.ts';
import { accountPage } from './pages/account.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { settingsSignInPage } from './pages/sign-in.ts';
import { endSession, safeReturnPath, signedInUser, startSession, type SignedIn } from '../web/session.ts';

/** GET /auth/settings: the account overview. */
export async function showAccount(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    'Account',
    shell({ signedIn, csrf, section: 'account' }, accountPage(signedIn.user)),
  );
}

function renderSignIn(
  deps: AuthDeps,
  ctx: Context,
  returnTo: string,
  options: { status?: number; email?: string; error?: string } = {},
): void {
  sendPage(
    ctx,
    options.status ?? 200,
    'Sign in',
    settingsSignInPage({
      csrf: csrfFor(deps, ctx, SIGN_IN_PURPOSE),
      returnTo,
      ...(options.email !== undefined ? { email: options.email } : {}),
      ...(options.error !== undefined ? { error: options.error } : {}),
      signUpDisabled: !deps.runtime.config.signupEnabled,
    }),
  );
}

/** GET /auth/settings/sign-in?return=: the form; someone already signed in goes straight back. */
export function showSettingsSignIn(deps: AuthDeps) {
  return async function showSettingsSignInHandler(ctx: Context) {
    const returnTo = safeReturnPath(ctx.query.return);
    if (await signedInUser(deps, ctx)) return seeOther(ctx, returnTo);
    renderSignIn(deps, ctx, returnTo);
  };
}

/**
 * POST /auth/settings/sign-in: the same password check, failure counters and locks as the sign-in
 * step of an authorization (`checkSignIn`), then the authorization server's session.
 */
export function settingsSignIn(deps: AuthDeps) {
  return async function settingsSignInHandler(ctx: Context) {
    const form = await readForm(deps, ctx, SIGN_IN_PURPOSE);
    const returnTo = safeReturnPath(form.return);
    const email = (form.email ?? '').trim();
    const password = form.password ?? '';
    if (email === '' || password === '')
      return renderSignIn(deps, ctx, returnTo, {
        status: 400,
        email,
        error: 'Enter your email and password.',
      });
    const user = await checkSignIn(deps, ctx.ip, email, password);
    if (!user || user.managedByClientId !== null)
      return renderSignIn(deps, ctx, returnTo, { status: 401, email, error: 'Incorrect email or password.' });
    await startSession(deps, ctx, user);
    seeOther(ctx, returnTo);
  };
}

/** POST /auth/settings/sign-out (CSRF-checked for the signed-in user, so no other site can sign anyone out). */
export function settingsSignOut(deps: AuthDeps) {
  return async function settingsSignOutHandler(ctx: Context) {
    const signedIn = await signedInUser(deps, ctx);
    if (signedIn) {
      await readForm(deps, ctx, userPurpose(signedIn.user.id));
      await endSession(deps, ctx);
    }
    seeOther(ctx, PATHS.settingsSignIn);
  };
}
