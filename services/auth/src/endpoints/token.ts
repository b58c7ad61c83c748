import { clientVersionKey } from '@sched/db/queries/oauth-clients';
import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';
import type { Params } from '../http/params.ts';
import { enforceLimit } from '@sched/runtime/rate-limit';
import { LIMITS, rateKeys } from '../http/rate-limit.ts';
import { replayAsForm } from '../http/replay-body.ts';
import { PATHS } from '../paths.ts';
import { deferTokenWrites, prefetched, takeTokenWrites, wellFormed } from '../provider/adapter.ts';
import { withoutInternalScopes } from '../provider/scopes.ts';
import { authenticateClient, basicChallenge } from './client-auth.ts';
import { providerRefusal, readClientRequest } from './client-request.ts';
import { RefreshWindow, type TokenAnswer } from './refresh-window.ts';
import { GRANT_TYPES, tokenErrors } from './token-errors.ts';

/**
 * The client of the request. For a refresh, the refresh token and the client's cache version come
 * in one token-store read, and the record is handed on to oidc-provider so it does not read it again.
 */
async function resolveClient(deps: AuthDeps, ctx: Context, clientId: string, params: Params) {
  const refreshToken = params.refresh_token;
  if (params.grant_type !== 'refresh_token' || !wellFormed(refreshToken))
    return { client: await deps.loadClient(ctx.state, clientId), record: undefined };
  const { record, versions } = await deps.runtime.stores.tokenStore.findWithVersions(
    'RefreshToken',
    refreshToken,
    [clientVersionKey(clientId)],
  );
  prefetched(ctx.state, 'RefreshToken', refreshToken, record);
  return { client: await deps.clients.remember(ctx.state, clientId, versions[0] ?? 0), record };
}

/**
 * POST /v2/auth/oauth2/token in front of oidc-provider: reads JSON or form bodies, applies the
 * contract's checks in its order (client_id, grant_type, rate limit, client, secret, approval),
 * then lets the provider run the grant and reshapes its answer: the contract's success body, or
 * its error table.
 */
export function tokenEndpoint(deps: AuthDeps) {
  const store = deps.runtime.stores.tokenStore;
  const window = new RefreshWindow(deps.runtime.config.refreshReuseInterval, deps.runtime.config.cookieKeys);
  return async function tokenEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.token || ctx.method !== 'POST') return next();
    const { params, presented } = await readClientRequest(ctx);
    const grantType = params.grant_type;
    if (!grantType) throw tokenErrors.unsupportedGrantType();
    if (!(GRANT_TYPES as readonly string[]).includes(grantType)) throw tokenErrors.unsupportedGrantType();

    // The rate-limit count and the client (with the refresh token) are read side by side; a request
    // over the limit is refused before the client is authenticated all the same.
    const [, { client, record }] = await Promise.all([
      enforceLimit(store, rateKeys.tokenClient(presented.clientId), LIMITS.tokenPerClient, 'token requests'),
      resolveClient(deps, ctx, presented.clientId, params),
    ]);
    authenticateClient(client, presented, basicChallenge(deps.issuer, presented));

    // A refresh token used already, within the retry window: its kept answer, or revocation.
    const refreshToken = grantType === 'refresh_token' ? params.refresh_token : undefined;
    if (refreshToken && window.on && typeof record?.consumed === 'number') {
      const kept = await store.find(window.ref(refreshToken).model, refreshToken);
      if (kept && record.clientId === presented.clientId) {
        const answer = window.open(refreshToken, presented.clientId, kept);
        if (answer) {
          ctx.body = answer;
          return;
        }
      } else if (kept && typeof record.grantId === 'string') {
        // Another client replays a refresh token rotated moments ago: reuse detection.
        await revokeGrant(deps, record.grantId);
        throw tokenErrors.invalidRefreshToken();
      }
    }

    // Refreshing keeps the scopes of the original authorization; they are not re-requested.
    if (grantType === 'refresh_token') delete params.scope;
    replayAsForm(ctx, params);

    deferTokenWrites(ctx.state);
    let answer: TokenAnswer | undefined;
    let thrown: { error: unknown } | undefined;
    try {
      await next();
      const body = ctx.body as Record<string, unknown> | undefined;
      if (ctx.status === 200 && body && typeof body.access_token === 'string') {
        answer = {
          access_token: body.access_token,
          refresh_token: body.refresh_token,
          token_type: 'bearer',
          expires_in: body.expires_in,
          scope: withoutInternalScopes(typeof body.scope === 'string' ? body.scope : ''),
          // OpenID Connect: kept with the rest, so a retry within the window gets it back too.
          ...(typeof body.id_token === 'string' ? { id_token: body.id_token } : {}),
        };
      }
    } catch (error) {
      thrown = { error };
    }
    {
      // Also when the grant failed after consuming: a consumed code or refresh token stays so.
      const { consume, writes } = takeTokenWrites(ctx.state);
      if (refreshToken && window.on && consume && answer) {
        // The answer is kept with the consumption, in the same atomic step: a request that loses
        // the race for this refresh token finds it there, never "consumed but not yet kept".
        const settlement = await store.consumeAndUpsertOrRead(
          consume,
          [...writes, window.keep(refreshToken, presented.clientId, answer)],
          window.ref(refreshToken),
        );
        if (!settlement.settled) answer = window.open(refreshToken, presented.clientId, settlement.found);
        if (!answer) throw tokenErrors.invalidRefreshToken();
      } else if (consume || writes.length > 0) {
        // Another request consumed the code or refresh token first: nothing was issued to this one.
        if (!(await store.consumeAndUpsert(consume, writes)) && !thrown) {
          throw grantType === 'refresh_token'
            ? tokenErrors.invalidRefreshToken()
            : tokenErrors.codeInvalidOrExpired();
        }
      }
    }

    if (thrown) throw thrown.error;
    if (answer) {
      ctx.status = 200;
      ctx.body = answer;
      return;
    }
    throw providerRefusal(ctx, grantType, basicChallenge(deps.issuer, presented));
  };
}

/** Ends every token of the grant and the grant itself, as oidc-provider's reuse detection does. */
async function revokeGrant(deps: AuthDeps, grantId: string): Promise<void> {
  const { provider } = deps;
  await Promise.all([
    provider.RefreshToken.adapter.revokeByGrantId(grantId),
    provider.Grant.adapter.destroy(grantId),
  ]);
}
