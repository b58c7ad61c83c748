import { createUser } from '@sched/db/queries/users';
import { enforceLimit } from '@sched/runtime/rate-limit';
import type { Context } from 'koa';
import { takenUserField } from '../data-errors.ts';
import type { AuthDeps } from '../deps.ts';
import { rateKeys } from '../http/rate-limit.ts';
import { seeOther } from '../interaction/current.ts';
import { sendVerificationEmail } from '../interaction/email-verification.ts';
import { assertSignUpEnabled, type SignUpErrors, validateSignUp } from '../interaction/sign-up.ts';
import { sendPage } from '../pages/layout.ts';
import { signUpPage } from '../pages/sign-up.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm } from './forms.ts';
import { safeReturnPath, signedInUser, startSession } from './session.ts';

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
    const { input, errors } = validateSignUp(form);
    const values = { name: input.name, email: input.email, username: input.username };
    if (Object.keys(errors).length > 0) return renderSignUp(deps, ctx, returnTo, 400, { values, errors });
    await enforceLimit(
      deps.runtime.stores.tokenStore,
      rateKeys.signUpIp(ctx.ip),
      deps.runtime.config.rateLimits['sign-up-ip'],
      'accounts created from your network',
    );
    let user: Awaited<ReturnType<typeof createUser>>;
    try {
      user = await createUser(deps.runtime.stores.db.knex, input);
    } catch (error) {
      const field = takenUserField(error);
      if (field === undefined) throw error;
      const conflict: SignUpErrors =
        field === 'username'
          ? { username: 'This username is taken.' }
          : { email: 'An account with this email already exists. Sign in instead.' };
      return renderSignUp(deps, ctx, returnTo, 409, { values, errors: conflict });
    }
    try {
      await sendVerificationEmail(deps, user);
    } catch (error) {
      ctx.state.log?.warn({ err: error, userId: user.id }, 'verification e-mail not sent');
    }
    await startSession(deps, ctx, user);
    seeOther(ctx, returnTo);
  };
}
