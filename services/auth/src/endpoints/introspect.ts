import { findResourceServerSecretHash, RESOURCE_SERVER_ID } from '@sched/db/queries/resource-servers';
import type { TokenPayload } from '@sched/db/token-store/types';
import { enforceLimit } from '@sched/runtime/rate-limit';
import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { OAuthError } from '../errors.ts';
import { readParams } from '../http/params.ts';
import { rateKeys } from '../http/rate-limit.ts';
import { wellFormed } from '../provider/adapter.ts';
import { secretMatches } from '../provider/clients.ts';
import { withoutInternalScopes } from '../provider/scopes.ts';
import { PATHS } from '../paths.ts';
import { authenticateClient, basicChallenge, type PresentedClient, presentedClient } from './client-auth.ts';
import { refuseOtherMethods } from './client-request.ts';
import { tokenErrors } from './token-errors.ts';

/**
 * POST /v2/auth/oauth2/introspect (RFC 7662), answered here without oidc-provider
 * (its introspection feature stays off): JSON or form bodies, client authentication by HTTP Basic
 * or in the body (client_secret_basic, client_secret_post).
 *
 * Who may ask: a confidential OAuth client, about its own tokens (another client's token is
 * `{active: false}`, the same answer as an unknown one, so nothing leaks), or a resource server
 * registered by a service administrator (`POST /v2/admin/resource-servers`), about any token.
 * Public clients, unknown callers and wrong secrets get 401 `invalid_client`. Access and refresh
 * tokens are both answered; `token_type_hint` only decides which is looked up first.
 *
 * The record is read from the token store like the resource API reads it: a token that is unknown,
 * revoked (deleted), consumed (a rotated refresh token), expired, or whose client is gone is
 * `{active: false}`. Otherwise exactly `active, scope, client_id, sub, exp, iat, token_type`.
 */

/** Who is asking: a client may see its own tokens, a resource server any. */
type Introspector = { kind: 'client'; clientId: string } | { kind: 'resource-server'; id: string };

const MODELS = { access_token: 'AccessToken', refresh_token: 'RefreshToken' } as const;

/** `token_type` of the answer: the token endpoint's spelling for access tokens. */
const TOKEN_TYPES: Record<string, string> = { AccessToken: 'bearer', RefreshToken: 'refresh_token' };

const INACTIVE = { active: false } as const;

const publicClientRefused = (challenge: Record<string, string> | undefined) =>
  new OAuthError(
    401,
    'invalid_client',
    'only confidential clients and resource servers may introspect tokens',
    challenge,
  );

async function authenticate(
  deps: AuthDeps,
  ctx: Context,
  presented: PresentedClient & { clientId: string },
  challenge: Record<string, string> | undefined,
): Promise<Introspector> {
  if (RESOURCE_SERVER_ID.test(presented.clientId)) {
    const hash = await findResourceServerSecretHash(deps.runtime.stores.db.knex, presented.clientId);
    if (hash !== undefined) {
      if (!presented.secret || !secretMatches(presented.secret, [hash]))
        throw tokenErrors.invalidClientCredentials(challenge);
      return { kind: 'resource-server', id: presented.clientId };
    }
  }
  const client = await deps.loadClient(ctx.state, presented.clientId);
  if (client && client.clientType !== 'confidential') throw publicClientRefused(challenge);
  // Like revocation, any review state: a client moved back to review still holds valid tokens.
  authenticateClient(client, presented, challenge, { anyReviewStatus: true });
  return { kind: 'client', clientId: presented.clientId };
}

function lookupOrder(hint: string | undefined): Array<'AccessToken' | 'RefreshToken'> {
  return hint === 'refresh_token' ? ['RefreshToken', 'AccessToken'] : ['AccessToken', 'RefreshToken'];
}

function isLive(model: string, record: TokenPayload | undefined, nowSeconds: number): record is TokenPayload {
  return (
    record !== undefined &&
    record.kind === model &&
    record.consumed === undefined &&
    typeof record.exp === 'number' &&
    record.exp > nowSeconds &&
    typeof record.accountId === 'string' &&
    record.accountId !== '' &&
    typeof record.clientId === 'string'
  );
}

async function introspect(
  deps: AuthDeps,
  ctx: Context,
  token: string,
  hint: string | undefined,
  caller: Introspector,
): Promise<Record<string, unknown>> {
  if (!wellFormed(token)) return INACTIVE;
  const store = deps.runtime.stores.tokenStore;
  const nowSeconds = Date.now() / 1000;
  for (const model of lookupOrder(hint)) {
    const record = await store.find<TokenPayload>(model, token);
    if (record === undefined) continue;
    if (!isLive(model, record, nowSeconds)) return INACTIVE;
    const clientId = record.clientId as string;
    if (caller.kind === 'client' && clientId !== caller.clientId) return INACTIVE;
    // Deleting a client revokes its tokens; this covers a record written meanwhile.
    if (caller.kind === 'resource-server' && !(await deps.loadClient(ctx.state, clientId))) return INACTIVE;
    return {
      active: true,
      scope: withoutInternalScopes(typeof record.scope === 'string' ? record.scope : ''),
      client_id: clientId,
      sub: record.accountId,
      exp: record.exp,
      iat: record.iat,
      token_type: TOKEN_TYPES[model],
    };
  }
  return INACTIVE;
}

export function introspectionEndpoint(deps: AuthDeps) {
  const store = deps.runtime.stores.tokenStore;
  // The guard is not async: every request passes it, and only introspection needs a promise.
  return function introspectionEndpointMiddleware(ctx: Context, next: Next) {
    return ctx.path === PATHS.introspect ? answer(ctx) : next();
  };
  async function answer(ctx: Context): Promise<void> {
    refuseOtherMethods(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const params = await readParams(ctx, { json: true });
    const presented = presentedClient(ctx.get('authorization'), params);
    const challenge = basicChallenge(deps.issuer, presented);
    if (!presented.clientId) {
      throw new OAuthError(401, 'invalid_client', 'client authentication is required', {
        'WWW-Authenticate': `Basic realm="${deps.issuer}"`,
      });
    }
    const named = { ...presented, clientId: presented.clientId };
    const caller = await authenticate(deps, ctx, named, challenge);
    // Counted once authenticated: a wrong secret must not use up the caller's allowance.
    await enforceLimit(
      store,
      rateKeys.introspectClient(named.clientId),
      deps.runtime.config.rateLimits.introspect,
      'introspection requests',
      ctx.res,
    );
    if (!params.token) throw new OAuthError(400, 'invalid_request', 'token is required');
    const hint = params.token_type_hint;
    ctx.status = 200;
    ctx.body = await introspect(
      deps,
      ctx,
      params.token,
      hint && Object.hasOwn(MODELS, hint) ? hint : undefined,
      caller,
    );
  }
}
