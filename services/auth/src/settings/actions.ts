import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { requireSignIn, type SignedIn } from '../web/session.ts';

type Handler = (deps: AuthDeps, ctx: Context, signedIn: SignedIn) => Promise<void>;

/**
 * A POST of the settings whose own path has no page (a revoke button, the resend button): signed
 * out, the browser goes to the sign-in page and comes back to `returnTo`, the page the form was on.
 */
export const signedInAction = (deps: AuthDeps, returnTo: string, handler: Handler) =>
  async function settingsAction(ctx: Context) {
    const signedIn = await requireSignIn(deps, ctx, returnTo);
    if (signedIn) await handler(deps, ctx, signedIn);
  };
