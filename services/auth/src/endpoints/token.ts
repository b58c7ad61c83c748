import { clientVersionKey } from '@sched/db/queries/oauth-clients';
import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';
import type { Params } from '../http/params.ts';
import { enforceLimit } from '@sched/runtime/rate-limit';
import { LIMITS, rateKeys } from '../http/rate-limit.ts';
import { replayAsForm } from '../http/replay-body.ts';
import { PATHS } from '../paths.ts';
import { deferTokenWrites, flushTokenWrites, prefetched, wellFormed } from '../provider/adapter.ts';
import { withoutInternalScopes } from '../provider/scopes.ts';
import { authenticateClient, basicChallenge } from './client-auth.ts';
import { providerRefusal, readClientRequest } from './client-request.ts';
import { GRANT_TYPES, tokenErrors } from './token-errors.ts';

/**
 * The client of the request. For a refresh, the refresh token and the client's cache version come
 * in one token-store read, and the record is handed on to oidc-provider so it does not read it again.
 */
async function resolveClient(deps: AuthDeps, ctx: Context, clientId: string, params: Params) {
  const refreshToken = params.refresh_token;
  if (params.grant_type !== 'refresh_token' || !wellFormed(refreshToken))
    return deps.loadClient(ctx.state, clientId);
  const { record, versions } = await deps.runtime.stores.tokenStore.findWithVersions(
    'RefreshToken',
    refreshToken,
    [clientVersionKey(clientId)],
  );
  prefetched(ctx.state, 'RefreshToken', refreshToken, record);
  return deps.clients.remember(ctx.state, clientId, versions[0] ?? 0);
}

/**
 * POST /v2/auth/oauth2/token in front of oidc-provider: reads JSON or form bodies, applies the
 * contract's checks in its order (client_id, grant_type, rate limit, client, secret, approval),
 * then lets the provider run the grant and reshapes its answer: the contract's success body, or
 * its error table.
 */
export function tokenEndpoint(deps: AuthDeps) {
  const store = deps.runtime.stores.tokenStore;
  return async function tokenEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.token || ctx.method !== 'POST') return next();
    const { params, presented } = await readClientRequest(ctx);
    const grantType = params.grant_type;
    if (!grantType) throw tokenErrors.unsupportedGrantType();
    if (!(GRANT_TYPES as readonly string[]).includes(grantType)) throw tokenErrors.unsupportedGrantType();

    // The rate-limit count and the client (with the refresh token) are read side by side; a request
    // over the limit is refused before the client is authenticated all the same.
    const [, client] = await Promise.all([
      enforceLimit(store, rateKeys.tokenClient(presented.clientId), LIMITS.tokenPerClient, 'token requests'),
      resolveClient(deps, ctx, presented.clientId, params),
    ]);
    authenticateClient(client, presented, basicChallenge(deps.issuer, presented));

    // Refreshing keeps the scopes of the original authorization; they are not re-requested.
    if (grantType === 'refresh_token') delete params.scope;
    replayAsForm(ctx, params);

    deferTokenWrites(ctx.state);
    let settled: boolean;
    try {
      await next();
    } finally {
      // Also when the grant failed after consuming: a consumed code or refresh token stays so.
      settled = await flushTokenWrites(store, ctx.state);
    }
    // Another request consumed the code or refresh token first: nothing was issued to this one.
    if (!settled) {
      throw grantType === 'refresh_token'
        ? tokenErrors.invalidRefreshToken()
        : tokenErrors.codeInvalidOrExpired();
    }

    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status === 200 && body && typeof body.access_token === 'string') {
      ctx.body = {
        access_token: body.access_token,
        refresh_token: body.refresh_token,
        token_type: 'bearer',
        expires_in: body.expires_in,
        scope: withoutInternalScopes(typeof body.scope === 'string' ? body.scope : ''),
      };
      return;
    }
    throw providerRefusal(ctx, grantType, basicChallenge(deps.issuer, presented));
  };
}
