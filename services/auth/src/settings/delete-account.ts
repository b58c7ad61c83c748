import { deleteAccount, LastOwnerError } from '@sched/clients/account-deletion';
import { findSoleOwnerships } from '@sched/db/queries/account-deletion';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { checkSignIn } from '../interaction/sign-in.ts';
import { sendPage } from '../pages/layout.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import { deleteAccountPage, goodbyePage } from './pages/delete-account.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { endSession, type SignedIn } from '../web/session.ts';

/**
 * Account deletion from the settings (the password is re-entered on the page): the same
 * `@sched/clients/account-deletion` call as `DELETE /v2/me`. The page warns what goes and, before
 * anything is typed, names the organizations and teams the user is the last owner of. The password
 * is checked like a sign-in (failures count towards the sign-in locks). After the deletion this
 * browser's session cookie is cleared too and the page says goodbye.
 */

async function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  options: { status?: number; passwordError?: string; error?: string } = {},
): Promise<void> {
  const { user } = signedIn;
  const csrf = csrfFor(deps, ctx, userPurpose(user.id));
  const soleOwnerOf = await findSoleOwnerships(deps.runtime.stores.db.knex, user.id);
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    'Delete account',
    shell(
      { signedIn, csrf, section: 'profile' },
      deleteAccountPage({
        csrf,
        email: user.email,
        soleOwnerOf,
        passwordError: options.passwordError,
        error: options.error,
      }),
    ),
  );
}

/** GET /auth/settings/delete-account. */
export async function deleteAccountForm(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await render(deps, ctx, signedIn);
}

/** POST /auth/settings/delete-account: wrong password 400, last owner 409, else the goodbye page (200). */
export async function deleteAccountAction(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const { user } = signedIn;
  const form = await readForm(deps, ctx, userPurpose(user.id));
  const password = form.password ?? '';
  if (password === '')
    return render(deps, ctx, signedIn, { status: 400, passwordError: 'Enter your password.' });
  const checked = await checkSignIn(deps, ctx.ip, user.email, password);
  if (!checked || checked.id !== user.id)
    return render(deps, ctx, signedIn, { status: 400, passwordError: 'Your password is not correct.' });
  try {
    await deleteAccount(deps.runtime, user.id, signedIn.actor.audit);
  } catch (error) {
    if (!(error instanceof LastOwnerError)) throw error;
    return render(deps, ctx, signedIn, { status: 409, error: error.message });
  }
  await endSession(deps, ctx);
  sendPage(ctx, 200, 'Account deleted', goodbyePage());
}
