import { findUserById, type User } from '@sched/db/queries/users';
import type { Actor } from '@sched/clients/rights';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { userAuditContext } from '../http/audit-context.ts';
import { PATHS } from '../paths.ts';
import { TTL } from '../provider/configuration.ts';
import { sessionIsCurrent, stampSession } from '../provider/session-credential.ts';

/**
 * Who is signed in on the settings pages: the authorization server's own browser session
 * (oidc-provider's `Session`, cookie `auth.session`), so one sign-in covers the authorization
 * flow and the settings. Signing in here writes the same record oidc-provider writes after its
 * sign-in step; signing in during an authorization signs in here too.
 */

export interface SignedIn {
  user: User;
  actor: Actor;
}

/**
 * The signed-in user, or null (no session, expired, signed out, the user no longer exists, or the
 * session was signed in with a password the account no longer has).
 */
export async function signedInUser(deps: AuthDeps, ctx: Context): Promise<SignedIn | null> {
  const cached = ctx.state.settingsUser as SignedIn | null | undefined;
  if (cached !== undefined) return cached;
  const session = await deps.provider.Session.get(ctx);
  const userId = Number(session.accountId);
  const user =
    session.accountId && Number.isSafeInteger(userId)
      ? await findUserById(deps.runtime.stores.db.knex, userId)
      : null;
  // Managed users of the deprecated family have no settings of their own.
  const result =
    user && user.managedByClientId === null && sessionIsCurrent(session, user)
      ? {
          user,
          actor: {
            userId: user.id,
            serviceAdmin: user.isServiceAdmin,
            // Who acts on the settings and admin pages, for the audit events of what they change.
            audit: userAuditContext(ctx, user.id),
          },
        }
      : null;
  ctx.state.settingsUser = result;
  return result;
}

/** Only local absolute paths under the settings or admin pages come back after sign-in. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || value.length > 500) return PATHS.settings;
  if (!/^\/auth\/(settings|admin)(\/[A-Za-z0-9._~\-/]*)?(\?[A-Za-z0-9._~\-=&%]*)?$/.test(value))
    return PATHS.settings;
  if (
    value.includes('//') ||
    value.includes('/..') ||
    value.startsWith(PATHS.settingsSignIn) ||
    value.startsWith(PATHS.settingsSignUp)
  )
    return PATHS.settings;
  return value;
}

/**
 * The signed-in user, or a 303 to the sign-in page that comes back here afterwards (GET pages) /
 * to the page the form was on (POSTs land on a fresh form: their CSRF token was the old session's).
 * `returnTo` names that page when the POST's own path has no GET (it goes through
 * `safeReturnPath` like every other return).
 */
export async function requireSignIn(
  deps: AuthDeps,
  ctx: Context,
  returnTo?: string,
): Promise<SignedIn | null> {
  const signedIn = await signedInUser(deps, ctx);
  if (signedIn) return signedIn;
  const back = safeReturnPath(returnTo ?? (ctx.method === 'GET' ? ctx.originalUrl : ctx.path));
  seeOther(ctx, `${PATHS.settingsSignIn}?return=${encodeURIComponent(back)}`);
  return null;
}

const cookieOptions = (deps: AuthDeps, expires?: Date) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: deps.csrf.secure,
  signed: true,
  overwrite: true,
  ...(expires ? { expires } : {}),
});

/**
 * Signs `user` in: a new session record (a new identifier, so a session id planted before sign-in
 * is worthless), and the previous session of this browser is destroyed. `user` is the one the
 * password check read (or the sign-up made): its credential epoch goes into the session.
 */
export async function startSession(deps: AuthDeps, ctx: Context, user: User): Promise<void> {
  const previous = await deps.provider.Session.get(ctx);
  if (previous.accountId) await previous.destroy();
  const session = new deps.provider.Session();
  session.loginAccount({ accountId: String(user.id) });
  stampSession(session, user);
  await session.save(TTL.Session);
  ctx.cookies.set(
    deps.provider.cookieName('session'),
    session.jti,
    cookieOptions(deps, new Date(Date.now() + TTL.Session * 1000)),
  );
  ctx.state.settingsUser = undefined;
}

/** Signs out everywhere on this server (the session is the authorization server's too). */
export async function endSession(deps: AuthDeps, ctx: Context): Promise<void> {
  const session = await deps.provider.Session.get(ctx);
  if (session.accountId) await session.destroy();
  ctx.cookies.set(deps.provider.cookieName('session'), null, cookieOptions(deps));
  ctx.state.settingsUser = null;
}
