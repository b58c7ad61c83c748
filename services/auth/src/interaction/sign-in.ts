import { countSignInFailure } from '@sched/kit/metrics';
import { type User, verifyUserPassword } from '@sched/db/queries/users';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { readParams } from '../http/params.ts';
import { assertNotLocked, countFailure, rateKeys } from '../http/rate-limit.ts';
import { embedFlowOf, embedPageOptions } from '../embed-flow/flow.ts';
import { joinEmbedFlow } from './embed-flow.ts';
import { progress } from '../embed-flow/pages/progress.ts';
import { sendPage } from '../pages/layout.ts';
import { signInPage } from '../pages/sign-in.ts';
import { interactionPath } from '../paths.ts';
import { currentInteraction, finishSignIn, type Interaction, requestOf, seeOther } from './current.ts';

const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;

export async function renderSignIn(
  deps: AuthDeps,
  ctx: Context,
  interaction: Interaction,
  options: { status?: number; email?: string; error?: string } = {},
): Promise<void> {
  const client = await deps.loadClient(ctx.state, requestOf(interaction).clientId);
  const embedded = embedFlowOf(ctx) !== undefined;
  sendPage(
    ctx,
    options.status ?? 200,
    'Sign in',
    signInPage({
      uid: interaction.uid,
      csrf: issueCsrfToken(ctx, deps.csrf, interaction.uid),
      clientName: client?.name,
      ...(options.email !== undefined ? { email: options.email } : {}),
      ...(options.error !== undefined ? { error: options.error } : {}),
      ...(embedded ? { cancel: true, header: progress('Account') } : {}),
      signUpDisabled: !deps.runtime.config.signupEnabled,
    }),
    // A mistyped password is not a failure of the flow: nothing is reported to the embedding page.
    embedPageOptions(ctx),
  );
}

/**
 * GET /auth/interaction/:uid/signin: the sign-in form on its own address (the onboarding embed
 * opens with the sign-up form, and links here for people who already have an account).
 */
export function showSignIn(deps: AuthDeps) {
  return async function showSignInHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    const flow = await joinEmbedFlow(deps, ctx, interaction);
    if (interaction.prompt.name !== 'login') return seeOther(ctx, interactionPath(interaction.uid));
    const email = flow?.prefill.email;
    await renderSignIn(deps, ctx, interaction, email !== undefined ? { email } : {});
  };
}

/**
 * The password check of every sign-in form (this one and the settings pages'): throws 429 while
 * the address or account is locked, counts a failure per account and per IP address, and returns
 * the user, or null for a wrong e-mail or password (the same answer for both).
 */
export async function checkSignIn(
  deps: AuthDeps,
  ip: string,
  email: string,
  password: string,
): Promise<User | null> {
  const store = deps.runtime.stores.tokenStore;
  const ipKey = rateKeys.signInIp(ip);
  const accountKey = rateKeys.signInAccount(email);
  await assertNotLocked(store, ipKey, 'failed sign-ins from your network');
  await assertNotLocked(store, accountKey, 'failed sign-ins for this account');
  const user =
    email.length <= MAX_EMAIL && password.length <= MAX_PASSWORD
      ? await verifyUserPassword(deps.runtime.stores.db.knex, email, password)
      : null;
  if (!user) {
    countSignInFailure('credentials');
    const limits = deps.runtime.config.rateLimits;
    await countFailure(store, ipKey, limits['sign-in-failures-ip']);
    await countFailure(store, accountKey, limits['sign-in-failures-account']);
  }
  return user;
}

/**
 * POST /auth/interaction/:uid/signin. Failed attempts are counted per account and per IP address;
 * a locked account or address gets 429 before any password is checked. A wrong e-mail and a wrong
 * password get the same answer.
 */
export function signIn(deps: AuthDeps) {
  return async function signInHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    await joinEmbedFlow(deps, ctx, interaction);
    const form = await readParams(ctx, { json: false });
    verifyCsrfToken(ctx, deps.csrf, interaction.uid, form[CSRF_FIELD]);
    if (interaction.prompt.name !== 'login') return seeOther(ctx, interactionPath(interaction.uid));

    const email = (form.email ?? '').trim();
    const password = form.password ?? '';
    if (email === '' || password === '') {
      return renderSignIn(deps, ctx, interaction, {
        status: 400,
        email,
        error: 'Enter your email and password.',
      });
    }
    const user = await checkSignIn(deps, ctx.ip, email, password);
    if (!user) {
      return renderSignIn(deps, ctx, interaction, {
        status: 401,
        email,
        error: 'Incorrect email or password.',
      });
    }
    await finishSignIn(deps, ctx, user);
  };
}
