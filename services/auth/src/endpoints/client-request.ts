import type { Context } from 'koa';
import { OAuthError } from '../errors.ts';
import { type Params, type ReadBody, readBody } from '../http/params.ts';
import { type PresentedClient, presentedClient } from './client-auth.ts';
import { fromProviderFailure, tokenErrors } from './token-errors.ts';

/** The token, revocation and introspection endpoints take POST only: 405 with `Allow`, not a 404. */
export function refuseOtherMethods(ctx: Context): void {
  if (ctx.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'use POST', { Allow: 'POST' });
}

/**
 * The opening of every endpoint a client calls directly (token, revocation): answers are never
 * cached, the body is JSON or form, and the client is named (body or HTTP Basic) or refused.
 */
export async function readClientRequest(
  ctx: Context,
): Promise<{ body: ReadBody; params: Params; presented: PresentedClient & { clientId: string } }> {
  // Constant, valid header text: straight on the Node response, without ctx.set's normalising.
  ctx.res.setHeader('Cache-Control', 'no-store');
  ctx.res.setHeader('Pragma', 'no-cache');
  const body = await readBody(ctx, { json: true });
  const { params } = body;
  const presented = presentedClient(ctx.get('authorization'), params);
  if (!presented.clientId) throw tokenErrors.clientIdRequired();
  return { body, params, presented: { ...presented, clientId: presented.clientId } };
}

/** What oidc-provider refused (its body and the error detail it recorded) as our documented error. */
export function providerRefusal(
  ctx: Context,
  grantType: string | undefined,
  challenge: Parameters<typeof fromProviderFailure>[2],
): OAuthError {
  const body = ctx.body as Record<string, unknown> | undefined;
  const failure = ctx.state.oauthFailure as { error_detail?: string } | undefined;
  return fromProviderFailure(
    {
      status: ctx.status,
      error: typeof body?.error === 'string' ? body.error : 'server_error',
      description: typeof body?.error_description === 'string' ? body.error_description : undefined,
      detail: failure?.error_detail,
    },
    grantType,
    challenge,
  );
}
