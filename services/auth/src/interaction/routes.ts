import Router from '@koa/router';
import type { Context } from 'koa';
import {
  forgotPassword,
  resetPasswordAction,
  showForgotPassword,
  showResetPassword,
} from '../account/password-reset.ts';
import type { AuthDeps } from '../deps.ts';
import { homePage } from '../pages/home.ts';
import { STYLESHEET } from '../pages/styles.ts';
import { PATHS } from '../paths.ts';
import { consent } from './consent.ts';
import { type InteractionStep, showInteraction } from './show.ts';
import { signIn } from './sign-in.ts';
import { showSignUp, signUp } from './sign-up.ts';
import { verifyEmail } from './verify-email.ts';

function stylesheet(ctx: Context): void {
  ctx.type = 'text/css; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = STYLESHEET;
}

/**
 * The browser pages of the authorization server (everything else is oidc-provider's);
 * `steps.embed` renders the steps of an onboarding-embed flow.
 */
export function pageRoutes(deps: AuthDeps, steps: { embed: InteractionStep }): Router {
  const router = new Router();
  const step = `${PATHS.interaction}/:uid`;
  router.get(step, showInteraction(deps, steps.embed));
  router.post(`${step}/signin`, signIn(deps));
  router.get(`${step}/signup`, showSignUp(deps));
  router.post(`${step}/signup`, signUp(deps));
  router.post(`${step}/consent`, consent(deps));
  router.get(PATHS.verifyEmail, verifyEmail(deps));
  router.get(PATHS.forgotPassword, showForgotPassword(deps));
  router.post(PATHS.forgotPassword, forgotPassword(deps));
  router.get(PATHS.resetPassword, showResetPassword(deps));
  router.post(PATHS.resetPassword, resetPasswordAction(deps));
  router.get(PATHS.stylesheet, stylesheet);
  router.get(PATHS.home, homePage(deps));
  return router;
}
