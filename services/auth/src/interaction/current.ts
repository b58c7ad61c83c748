import type { Context } from 'koa';
import type { InteractionResults } from 'oidc-provider';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { TTL } from '../provider/configuration.ts';

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

/** Ends the step with `result` and sends the browser back to the authorization request (303). */
export async function finishInteraction(
  deps: AuthDeps,
  ctx: Context,
  result: InteractionResults,
  mergeWithLastSubmission: boolean,
): Promise<void> {
  let returnTo: string;
  try {
    returnTo = await deps.provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission });
  } catch {
    throw new InteractionExpiredError();
  }
  // After the result is stored (oidc-provider checks that the session still holds the account the
  // interaction began with), before the browser resumes the authorization.
  if (result.login) await signOutOtherAccount(deps, ctx, result.login.accountId);
  seeOther(ctx, returnTo);
}

/**
 * A sign-in (or sign-up) as another account than the browser's session holds, as with
 * `prompt=login`, signs the old account out first: its account and authorizations leave the session
 * record, which keeps its uid (the interaction is bound to it) and gets a new id when the new
 * account is signed in. Left alone, oidc-provider would send the browser to its end-session
 * confirmation, a route this server does not serve (404, and the old account stayed signed in).
 */
async function signOutOtherAccount(deps: AuthDeps, ctx: Context, accountId: string): Promise<void> {
  const session = await deps.provider.Session.get(ctx);
  if (!session.accountId || session.accountId === accountId) return;
  const record = session as unknown as Record<string, unknown>;
  for (const field of ['accountId', 'loginTs', 'amr', 'acr', 'transient']) delete record[field];
  session.authorizations = {};
  await session.save(TTL.Session);
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
