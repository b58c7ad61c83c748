import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { type Interaction, requestOf } from './current.ts';
import { type EmbedFlow, flowFromParams, isEmbedParams, markEmbed } from '../embed-flow/flow.ts';

/**
 * When the interaction belongs to an onboarding-embed flow: marks the request as such (framing by
 * the client's origins, cookies, errors in the frame) and returns the flow. Undefined for the
 * site's ordinary authorization requests, which are left exactly as they were.
 */
export async function joinEmbedFlow(
  deps: AuthDeps,
  ctx: Context,
  interaction: Interaction,
): Promise<EmbedFlow | undefined> {
  const params = interaction.params as Record<string, unknown>;
  if (!isEmbedParams(params)) return undefined;
  const client = await deps.loadClient(ctx.state, requestOf(interaction).clientId);
  const flow = flowFromParams(params, client?.redirectUris ?? []);
  markEmbed(ctx, flow);
  return flow;
}
