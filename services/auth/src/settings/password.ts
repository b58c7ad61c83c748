import { setUserPassword } from '@sched/db/queries/users';
import { passwordProblem } from '@sched/accounts/password-rules';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { checkSignIn } from '../interaction/sign-in.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, type FieldErrors, readForm, userPurpose } from '../web/forms.ts';
import { passwordPage } from './pages/password.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type SignedIn, startSession } from '../web/session.ts';

/**
 * Password change: the current password is required, and the change ends the account's other sessions.
 * The current password is checked like a sign-in (`checkSignIn`: wrong attempts count towards the
 * account's and the address's sign-in locks, so a borrowed session cannot guess it); the new one
 * follows the sign-up rule. Then every browser session of the account ends (the authorization
 * server's sessions, which are the settings' sessions too) and this browser gets a new one.
 * API keys and OAuth grants stay: they are not sessions (a password reset ends those too).
 */

function render(deps: AuthDeps, ctx: Context, signedIn: SignedIn, status = 200, errors: FieldErrors = {}) {
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  const notice =
    ctx.query.notice === 'changed' && status === 200
      ? 'Password changed. Your other sessions were signed out.'
      : undefined;
  sendSettingsPage(
    ctx,
    status,
    'Password',
    shell({ signedIn, csrf, section: 'password' }, passwordPage({ csrf, errors, notice })),
  );
}

/** GET /auth/settings/password. */
export async function passwordForm(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  render(deps, ctx, signedIn);
}

/** POST /auth/settings/password: 400 with field messages, or 303 to the page with a notice. */
export async function changePassword(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const { user } = signedIn;
  const form = await readForm(deps, ctx, userPurpose(user.id));
  const current = form.currentPassword ?? '';
  const next = form.newPassword ?? '';
  const errors: FieldErrors = {};
  if (current === '') errors.currentPassword = 'Enter your current password.';
  const problem = passwordProblem(next);
  if (problem) errors.newPassword = problem;
  else if (next !== (form.confirmPassword ?? ''))
    errors.confirmPassword = 'The two new passwords do not match.';
  if (Object.keys(errors).length > 0) return render(deps, ctx, signedIn, 400, errors);
  const checked = await checkSignIn(deps, ctx.ip, user.email, current);
  if (!checked || checked.id !== user.id)
    return render(deps, ctx, signedIn, 400, { currentPassword: 'Your current password is not correct.' });
  const changed = await setUserPassword(deps.runtime.stores.db.knex, user.id, next, signedIn.actor.audit);
  // Every session of the account ends (this one too), then this browser gets a fresh one, with the
  // epoch of the password set here (not one read later, which a reset in between would have moved).
  await deps.runtime.stores.tokenStore.revokeSessionsOfUser(String(user.id));
  if (changed) await startSession(deps, ctx, changed);
  seeOther(ctx, `${PATHS.settingsPassword}?notice=changed`);
}
