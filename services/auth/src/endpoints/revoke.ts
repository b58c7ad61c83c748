import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { OAuthError } from '../errors.ts';
import { enforceLimit } from '@sched/runtime/rate-limit';
import { rateKeys } from '../http/rate-limit.ts';
import { replayToProvider } from '../http/replay-body.ts';
import { PATHS } from '../paths.ts';
import { authenticateClient, basicChallenge } from './client-auth.ts';
import { providerRefusal, readClientRequest, refuseOtherMethods } from './client-request.ts';

/**
 * POST /v2/auth/oauth2/revoke (RFC 7009) in front of oidc-provider: JSON or form bodies, the same
 * client checks as the token endpoint, then the provider revokes. A token that is unknown, already
 * revoked or another client's is answered 200 and left alone. Revoking a refresh token revokes its
 * whole grant; revoking an access token revokes that token and the grant's refresh tokens.
 */
export function revocationEndpoint(deps: AuthDeps) {
  const store = deps.runtime.stores.tokenStore;
  return async function revocationEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.revoke) return next();
    refuseOtherMethods(ctx);
    const { body, params, presented } = await readClientRequest(ctx);
    if (!params.token) throw new OAuthError(400, 'invalid_request', 'token is required');
    const challenge = basicChallenge(deps.issuer, presented);
    authenticateClient(await deps.loadClient(ctx.state, presented.clientId), presented, challenge, {
      anyReviewStatus: true,
    });
    // Counted once authenticated: a wrong secret must not use up the client's allowance.
    await enforceLimit(
      store,
      rateKeys.revokeClient(presented.clientId),
      deps.runtime.config.rateLimits.revoke,
      'revocation requests',
      ctx.res,
    );
    replayToProvider(ctx, body, true);

    await next();

    if (ctx.status === 200) return;
    throw providerRefusal(ctx, undefined, challenge);
  };
}
