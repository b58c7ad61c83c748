import { findUserById } from '@sched/db/queries/users';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { renderConsent } from '../interaction/consent.ts';
import type { Interaction } from '../interaction/current.ts';
import { renderSignIn } from '../interaction/sign-in.ts';
import { renderSignUp } from '../interaction/sign-up.ts';
import { renderCalendar, renderProfile } from './onboarding.ts';

/**
 * GET /auth/interaction/:uid of an onboarding-embed flow: the user's state decides the page.
 * No session -> sign-up (prefilled; sign-in one click away; the sign-in form when sign-up is off). Signed in with onboarding unfinished
 * -> the step left (users.onboarding_step). Onboarding complete -> consent, always with a click:
 * in a frame, remembered consent does not approve silently (provider/configuration.ts).
 */
export async function showEmbedStep(deps: AuthDeps, ctx: Context, interaction: Interaction): Promise<void> {
  if (interaction.prompt.name === 'login') {
    // SIGNUP_ENABLED=false: people with an account still get through, from the sign-in form.
    if (!deps.runtime.config.signupEnabled) return renderSignIn(deps, ctx, interaction);
    return renderSignUp(deps, ctx, interaction, 200);
  }
  if (interaction.prompt.name !== 'consent') throw new InteractionExpiredError();
  const accountId = interaction.session?.accountId;
  const user = accountId ? await findUserById(deps.runtime.stores.db.knex, Number(accountId)) : null;
  if (!user) throw new InteractionExpiredError();
  if (user.onboardingStep === 'profile') return renderProfile(deps, ctx, interaction, user);
  if (user.onboardingStep === 'calendar') return renderCalendar(deps, ctx, interaction, user);
  return renderConsent(deps, ctx, interaction);
}
