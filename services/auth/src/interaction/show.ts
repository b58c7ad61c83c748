import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { showEmbedStep } from '../embed/steps.ts';
import { joinEmbedFlow } from '../embed/interaction.ts';
import { renderConsent } from './consent.ts';
import { currentInteraction } from './current.ts';
import { renderSignIn } from './sign-in.ts';

/** GET /auth/interaction/:uid: the step the authorization request is waiting for. */
export function showInteraction(deps: AuthDeps) {
  return async function showInteractionHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    if (await joinEmbedFlow(deps, ctx, interaction)) return showEmbedStep(deps, ctx, interaction);
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
