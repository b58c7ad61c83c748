import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { requireSignIn, type SignedIn } from './session.ts';

/** A page or action of the settings or the admin console, for a signed-in user. */
export type SignedInHandler = (deps: AuthDeps, ctx: Context, signedIn: SignedIn) => Promise<void>;

/** Runs `handler` for a signed-in user; sends everyone else to sign in first. */
export const signedInPage = (deps: AuthDeps, handler: SignedInHandler) =>
  async function settingsPage(ctx: Context) {
    const signedIn = await requireSignIn(deps, ctx);
    if (signedIn) await handler(deps, ctx, signedIn);
  };
