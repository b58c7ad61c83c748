import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { renderConsent } from './consent.ts';
import { currentInteraction, type Interaction } from './current.ts';
import { joinEmbedFlow } from './embed-flow.ts';
import { renderSignIn } from './sign-in.ts';

/** Renders the page of one step of an interaction. */
export type InteractionStep = (deps: AuthDeps, ctx: Context, interaction: Interaction) => Promise<void>;

/**
 * GET /auth/interaction/:uid: the step the authorization request is waiting for. An onboarding-embed
 * flow's steps (embed/steps.ts) are handed in by the app, so the embed part builds on this folder
 * and not the other way round.
 */
export function showInteraction(deps: AuthDeps, embedStep: InteractionStep) {
  return async function showInteractionHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    if (await joinEmbedFlow(deps, ctx, interaction)) return embedStep(deps, ctx, interaction);
    switch (interaction.prompt.name) {
      case 'login':
        return renderSignIn(deps, ctx, interaction);
      case 'consent':
        return renderConsent(deps, ctx, interaction);
      default:
        throw new InteractionExpiredError();
    }
  };
}
