import {
  PASSWORD_RESET_TTL_SECONDS,
  requestPasswordReset,
  resetPassword,
  userOfResetLink,
} from '@sched/accounts/password-reset';
import { passwordProblem } from '@sched/accounts/password-rules';
import { enforceLimit } from '@sched/runtime/rate-limit';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { readParams, singleQueryValue } from '../http/params.ts';
import { requestAuditContext } from '../http/audit-context.ts';
import { rateKeys } from '../http/rate-limit.ts';
import { sendPage } from '../pages/layout.ts';
import {
  forgotPasswordPage,
  invalidResetLinkPage,
  passwordChangedPage,
  type ResetField,
  resetLinkSentPage,
  resetPasswordPage,
} from '../pages/password-reset.ts';

/**
 * "Forgot password?", linked from every sign-in page. The rules (single use,
 * 30 minutes, a new link voids older ones, what a completed reset ends) are
 * `@sched/accounts/password-reset`; these are its pages.
 */
const PURPOSE = 'password-reset';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export { PASSWORD_RESET_TTL_SECONDS };

/** GET /auth/forgot-password */
export function showForgotPassword(deps: AuthDeps) {
  return async function showForgotPasswordHandler(ctx: Context) {
    sendPage(
      ctx,
      200,
      'Forgot password?',
      forgotPasswordPage({ csrf: issueCsrfToken(ctx, deps.csrf, PURPOSE) }),
    );
  };
}

/**
 * POST /auth/forgot-password: the same answer whether the address has an account or not (the mail
 * is written after the answer). Limited per IP address (429).
 */
export function forgotPassword(deps: AuthDeps) {
  return async function forgotPasswordHandler(ctx: Context) {
    const form = await readParams(ctx, { json: false });
    verifyCsrfToken(ctx, deps.csrf, PURPOSE, form[CSRF_FIELD]);
    const email = (form.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254) {
      return sendPage(
        ctx,
        400,
        'Forgot password?',
        forgotPasswordPage({
          csrf: issueCsrfToken(ctx, deps.csrf, PURPOSE),
          email,
          error: 'Enter a valid email address.',
        }),
      );
    }
    await enforceLimit(
      deps.runtime.stores.tokenStore,
      rateKeys.passwordResetIp(ctx.ip),
      deps.runtime.config.rateLimits['password-reset-ip'],
      'password reset requests from your network',
    );
    await requestPasswordReset(deps.runtime, email);
    sendPage(ctx, 200, 'Check your email', resetLinkSentPage(email));
  };
}

/** GET /auth/reset-password?token=: the new-password form (the link is used only by the POST). */
export function showResetPassword(deps: AuthDeps) {
  return async function showResetPasswordHandler(ctx: Context) {
    const token = singleQueryValue(ctx, 'token') ?? '';
    const user = await userOfResetLink(deps.runtime, token);
    if (!user) return sendPage(ctx, 400, 'Link not valid', invalidResetLinkPage());
    sendPage(
      ctx,
      200,
      'Choose a new password',
      resetPasswordPage({ csrf: issueCsrfToken(ctx, deps.csrf, PURPOSE), token, email: user.email }),
    );
  };
}

/**
 * POST /auth/reset-password: the new password twice (the sign-up rule). Sets it, marks the address
 * verified, ends every session, API key and OAuth grant of the account, and this browser's session.
 */
export function resetPasswordAction(deps: AuthDeps) {
  return async function resetPasswordHandler(ctx: Context) {
    const form = await readParams(ctx, { json: false });
    verifyCsrfToken(ctx, deps.csrf, PURPOSE, form[CSRF_FIELD]);
    const token = form.token ?? '';
    const user = await userOfResetLink(deps.runtime, token);
    if (!user) return sendPage(ctx, 400, 'Link not valid', invalidResetLinkPage());
    const password = form.password ?? '';
    const errors: Partial<Record<ResetField, string>> = {};
    const problem = passwordProblem(password);
    if (problem) errors.password = problem;
    else if ((form.confirm ?? '') !== password) errors.confirm = 'The two passwords differ.';
    if (Object.keys(errors).length > 0) {
      return sendPage(
        ctx,
        400,
        'Choose a new password',
        resetPasswordPage({
          csrf: issueCsrfToken(ctx, deps.csrf, PURPOSE),
          token,
          email: user.email,
          errors,
        }),
      );
    }
    // The link's holder is not signed in: the system acts, with this request's id and address.
    const done = await resetPassword(
      deps.runtime,
      token,
      password,
      requestAuditContext(ctx, { kind: 'system', userId: null }),
    );
    if (!done) return sendPage(ctx, 400, 'Link not valid', invalidResetLinkPage());
    // The session records are gone (every one of the account); drop this browser's cookie too.
    ctx.cookies.set(deps.provider.cookieName('session'), null, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.csrf.secure,
      signed: true,
      overwrite: true,
    });
    ctx.state.log?.info({ userId: done.userId, ended: done.ended }, 'password reset completed');
    sendPage(ctx, 200, 'Password changed', passwordChangedPage());
  };
}
