import type { Context } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errorPage } from '../pages/error.ts';
import { EmbedParentOriginError } from './errors.ts';
import { sendPage } from '../pages/layout.ts';
import { type EmbedMessage, embedPageOptions, errorMessage, flowFromParams, markEmbed } from './flow.ts';
import { allowedPage, deniedPage } from './pages/result.ts';

type ResponsePayload = Record<string, unknown>;

/**
 * oidc-provider response mode `embed` (registered in provider/create.ts): where the authorization
 * endpoint would redirect to the client, the embed flow renders a small page whose script posts the
 * result to the embedding page (onboarding-embed README, "Protocol" 2): `authorization:allowed
 * {code, state, iss}` or `authorization:denied {state, iss}`, with target origin `parent_origin`
 * exactly (never '*'), to window.parent in the frame or window.opener in the popup (which then
 * closes). Other errors are shown in the frame and posted as `onboarding:error`
 * AUTHORIZATION_FAILED.
 *
 * `parent_origin` comes from the authorization request as stored by oidc-provider, checked at the
 * entry, and checked again here against the client's current redirect URIs.
 */
export async function embedResponseMode(
  ctx: KoaContextWithOIDC,
  _redirectUri: string,
  response: ResponsePayload,
): Promise<void> {
  const payload = Object.fromEntries(
    Object.entries(response).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const koa = ctx as unknown as Context;
  const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
  const client = ctx.oidc.client;
  const flow = flowFromParams(params, client?.redirectUris ?? []);
  markEmbed(koa, flow);
  if (!flow.parentOrigin) {
    // The embedding site is no longer registered: the code is never shown to anyone (it expires unused).
    const refused = new EmbedParentOriginError();
    return sendPage(koa, 400, refused.title, errorPage(refused.title, refused.message));
  }
  const clientName = client?.clientName ?? 'the application';
  const iss = payload.iss ?? ctx.oidc.provider.issuer;

  if (payload.code) {
    const message: EmbedMessage = { type: 'authorization:allowed', code: payload.code, iss };
    if (payload.state !== undefined) message.state = payload.state;
    return sendPage(koa, 200, 'Done', allowedPage(clientName), embedPageOptions(koa, message));
  }
  if (payload.error === 'access_denied') {
    const message: EmbedMessage = { type: 'authorization:denied', iss };
    if (payload.state !== undefined) message.state = payload.state;
    return sendPage(koa, 200, 'Access not granted', deniedPage(clientName), embedPageOptions(koa, message));
  }
  const description = payload.error_description ?? payload.error ?? 'The authorization failed.';
  const title = 'This request cannot continue';
  sendPage(
    koa,
    400,
    title,
    errorPage(title, description, 'Close this window and try again.'),
    embedPageOptions(koa, errorMessage('AUTHORIZATION_FAILED', description)),
  );
}
