import type { User } from '@sched/db/queries/users';
import type { Context } from 'koa';
import type { InteractionResults } from 'oidc-provider';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { TTL } from '../provider/configuration.ts';
import { signOutSessionRecord, stampSession } from '../provider/session-credential.ts';

export type Interaction = Awaited<ReturnType<AuthDeps['provider']['interactionDetails']>>;

/**
 * The interaction (one authorization request's sign-in and consent) this browser is in, checked
 * against the uid in the path. Its cookie is HttpOnly, signed and scoped to the interaction's path,
 * so another browser or another interaction cannot use it.
 */
export async function currentInteraction(deps: AuthDeps, ctx: Context): Promise<Interaction> {
  let interaction: Interaction;
  try {
    interaction = await deps.provider.interactionDetails(ctx.req, ctx.res);
  } catch {
    throw new InteractionExpiredError();
  }
  if (interaction.uid !== (ctx as Context & { params?: { uid?: string } }).params?.uid) {
    throw new InteractionExpiredError();
  }
  return interaction;
}

/** Ends the sign-in (or sign-up) step with `user`, as the password check read it, signed in. */
export function finishSignIn(deps: AuthDeps, ctx: Context, user: User): Promise<void> {
  return finishInteraction(deps, ctx, { login: { accountId: String(user.id) } }, false, user);
}

/**
 * Ends the step with `result` and sends the browser back to the authorization request (303). A
 * `login` result comes through `finishSignIn`, with the user signed in.
 */
export async function finishInteraction(
  deps: AuthDeps,
  ctx: Context,
  result: InteractionResults,
  mergeWithLastSubmission: boolean,
  signedIn?: User,
): Promise<void> {
  if (result.login && signedIn?.id !== Number(result.login.accountId))
    throw new Error('a sign-in result needs the user signed in (finishSignIn)');
  let returnTo: string;
  try {
    returnTo = await deps.provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission });
  } catch {
    throw new InteractionExpiredError();
  }
  // After the result is stored (oidc-provider checks that the session still holds the account the
  // interaction began with), before the browser resumes the authorization.
  if (signedIn) await signInSession(deps, ctx, signedIn);
  seeOther(ctx, returnTo);
}

/**
 * A successful sign-in (or sign-up) signs the browser's session in at once, and binds the
 * interaction to that session. Left to oidc-provider, the account would enter the session only when
 * the browser resumes the authorization: until then the sign-in lives in the interaction alone (an
 * hour), which no password reset or password change can end, so whoever knew the old password
 * could sign in, hold the resume address and follow it after the owner took the account back. Now
 * the session is the account's (ended with its other sessions), and oidc-provider refuses to resume
 * or show the interaction in any other session.
 *
 * Another account in the session is signed out first (as `prompt=login` asks): its account and
 * authorizations leave the session record, which keeps its uid (the interaction is bound to it).
 * Left alone, oidc-provider would send the browser to its end-session confirmation, a route this
 * server does not serve (404, and the old account stayed signed in).
 */
async function signInSession(deps: AuthDeps, ctx: Context, user: User): Promise<void> {
  const accountId = String(user.id);
  const session = await deps.provider.Session.get(ctx);
  if (session.accountId !== accountId) signOutSessionRecord(session);
  session.loginAccount({ accountId });
  // The epoch read with the password the step checked: a reset after that check ends this session.
  stampSession(session, user);
  // A new identifier (the record keeps its uid): a session cookie planted in this browser before
  // the sign-in is worthless, and the record under the old identifier goes on save.
  if (!(session as unknown as { new?: boolean }).new) session.resetIdentifier();
  await session.save(TTL.Session);
  ctx.cookies.set(deps.provider.cookieName('session'), session.jti, {
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.csrf.secure,
    signed: true,
    overwrite: true,
    expires: new Date(Date.now() + TTL.Session * 1000),
  });
  const uid = (ctx as Context & { params?: { uid?: string } }).params?.uid;
  const interaction = uid ? await deps.provider.Interaction.find(uid) : undefined;
  if (!interaction) throw new InteractionExpiredError();
  interaction.session = { accountId, uid: session.uid, cookie: session.jti };
  await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
}

export function seeOther(ctx: Context, location: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.redirect(location);
}

/** The client id and requested scope of the interaction's authorization request. */
export function requestOf(interaction: Interaction): {
  clientId: string;
  scope: string;
  redirectUri: string;
} {
  const {
    client_id: clientId,
    scope,
    redirect_uri: redirectUri,
  } = interaction.params as { client_id?: unknown; scope?: unknown; redirect_uri?: unknown };
  return {
    clientId: typeof clientId === 'string' ? clientId : '',
    scope: typeof scope === 'string' ? scope : '',
    redirectUri: typeof redirectUri === 'string' ? redirectUri : '',
  };
}
