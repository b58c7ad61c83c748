import { passwordProblem } from '@sched/accounts/password-rules';
import { createUser, type User } from '@sched/db/queries/users';
import { ForbiddenError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { takenUserField } from '../data-errors.ts';
import type { AuthDeps } from '../deps.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { type Params, readParams } from '../http/params.ts';
import { enforceLimit } from '@sched/runtime/rate-limit';
import { rateKeys } from '../http/rate-limit.ts';
import { embedFlowOf, embedPageOptions, errorMessage } from '../embed-flow/flow.ts';
import { joinEmbedFlow } from './embed-flow.ts';
import { progress } from '../embed-flow/pages/progress.ts';
import { sendPage } from '../pages/layout.ts';
import { type SignUpField, type SignUpView, signUpPage } from '../pages/sign-up.ts';
import { interactionPath } from '../paths.ts';
import { currentInteraction, finishSignIn, type Interaction, requestOf, seeOther } from './current.ts';
import { sendVerificationEmail } from './email-verification.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const USERNAME = /^[a-z0-9][a-z0-9._-]{1,39}$/;
const CONTROL = /\p{Cc}/u;

export interface SignUpInput {
  name: string;
  email: string;
  username: string;
  password: string;
}

export type SignUpErrors = Partial<Record<SignUpField, string>>;
type FieldErrors = SignUpErrors;

/** SIGNUP_ENABLED=false: the sign-up pages (here and in settings) are a 403 page. */
export function assertSignUpEnabled(deps: AuthDeps): void {
  if (!deps.runtime.config.signupEnabled)
    throw new ForbiddenError(
      'Sign-up is turned off on this server. Ask its administrator for an account, then sign in.',
    );
}

/** A refused sign-up form: its status and what to show again. */
export interface RefusedSignUp {
  status: 400 | 409;
  values: { name: string; email: string; username: string };
  errors: FieldErrors;
}

/**
 * What every sign-up page does with a submitted form: checks it, counts it against the per-address
 * limit, creates the account and sends the verification e-mail (a mail failure is logged; the
 * account stays). The page then signs the new user in its own way.
 */
export async function registerAccount(
  deps: AuthDeps,
  ctx: Context,
  form: Params,
): Promise<{ user: User } | RefusedSignUp> {
  const { input, errors } = validateSignUp(form);
  const values = { name: input.name, email: input.email, username: input.username };
  if (Object.keys(errors).length > 0) return { status: 400, values, errors };
  await enforceLimit(
    deps.runtime.stores.tokenStore,
    rateKeys.signUpIp(ctx.ip),
    deps.runtime.config.rateLimits['sign-up-ip'],
    'accounts created from your network',
  );
  let user: User;
  try {
    user = await createUser(deps.runtime.stores.db.knex, input);
  } catch (error) {
    const field = takenUserField(error);
    if (field === undefined) throw error;
    const conflict: FieldErrors =
      field === 'username'
        ? { username: 'This username is taken.' }
        : { email: 'An account with this email already exists. Sign in instead.' };
    return { status: 409, values, errors: conflict };
  }
  try {
    await sendVerificationEmail(deps, user);
  } catch (error) {
    ctx.state.log?.warn({ err: error, userId: user.id }, 'verification e-mail not sent');
  }
  return { user };
}

/** The sign-up form's fields, trimmed, and a message for each one that is wrong. */
export function validateSignUp(form: Params): { input: SignUpInput; errors: FieldErrors } {
  const input = {
    name: (form.name ?? '').trim(),
    email: (form.email ?? '').trim(),
    username: (form.username ?? '').trim().toLowerCase(),
    password: form.password ?? '',
  };
  const errors: FieldErrors = {};
  if (input.name === '' || input.name.length > 100 || CONTROL.test(input.name)) {
    errors.name = 'Enter your name (up to 100 characters).';
  }
  if (!EMAIL.test(input.email) || input.email.length > 254 || CONTROL.test(input.email)) {
    errors.email = 'Enter a valid email address.';
  }
  if (!USERNAME.test(input.username)) {
    errors.username =
      'Use 2 to 40 letters, digits, dots, dashes or underscores, starting with a letter or digit.';
  }
  const passwordError = passwordProblem(input.password);
  if (passwordError) errors.password = passwordError;
  return { input, errors };
}

/**
 * The sign-up form. In an onboarding-embed flow (marked by the caller) it starts prefilled from the
 * embedding site's `prefill_*`, links to the embed's sign-in form, offers Cancel, and reports a
 * failed attempt to the embedding page as SIGNUP_FAILED.
 */
export async function renderSignUp(
  deps: AuthDeps,
  ctx: Context,
  interaction: Interaction,
  status: number,
  extra: Pick<SignUpView, 'values' | 'errors' | 'error'> = {},
): Promise<void> {
  const client = await deps.loadClient(ctx.state, requestOf(interaction).clientId);
  const flow = embedFlowOf(ctx);
  const view: SignUpView = {
    uid: interaction.uid,
    csrf: issueCsrfToken(ctx, deps.csrf, interaction.uid),
    clientName: client?.name,
    ...(flow
      ? {
          values: flow.prefill,
          signInHref: interactionPath(interaction.uid, 'signin'),
          cancel: true,
          header: progress('Account'),
        }
      : {}),
    ...extra,
  };
  const problems = [extra.error, ...Object.values(extra.errors ?? {})].filter(Boolean).join(' ');
  const options = embedPageOptions(ctx, problems ? errorMessage('SIGNUP_FAILED', problems) : undefined);
  sendPage(ctx, status, 'Create account', signUpPage(view), options);
}

/** GET /auth/interaction/:uid/signup */
export function showSignUp(deps: AuthDeps) {
  return async function showSignUpHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    await joinEmbedFlow(deps, ctx, interaction);
    assertSignUpEnabled(deps);
    if (interaction.prompt.name !== 'login') return seeOther(ctx, interactionPath(interaction.uid));
    await renderSignUp(deps, ctx, interaction, 200);
  };
}

/**
 * POST /auth/interaction/:uid/signup: creates the user (with the default schedule), sends the
 * verification e-mail through the mailer, signs the new user in and continues the authorization.
 * A mail failure does not undo the account: it is logged, and a new link can be requested later.
 */
export function signUp(deps: AuthDeps) {
  return async function signUpHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    await joinEmbedFlow(deps, ctx, interaction);
    assertSignUpEnabled(deps);
    const form = await readParams(ctx, { json: false });
    verifyCsrfToken(ctx, deps.csrf, interaction.uid, form[CSRF_FIELD]);
    if (interaction.prompt.name !== 'login') return seeOther(ctx, interactionPath(interaction.uid));

    const registered = await registerAccount(deps, ctx, form);
    if (!('user' in registered)) return renderSignUp(deps, ctx, interaction, registered.status, registered);
    await finishSignIn(deps, ctx, registered.user);
  };
}
