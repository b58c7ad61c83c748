import { clientVersionKey, type OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import type { TokenPayload } from '@sched/db/token-store/types';
import { enforceLimit } from '@sched/runtime/rate-limit';
import type { Context, Next } from 'koa';
import { AgentDocumentError } from '../agents/errors.ts';
import type { AuthDeps } from '../deps.ts';
import { OAuthError } from '../errors.ts';
import { type Params, type ReadBody, RepeatedParameterError } from '../http/params.ts';
import { rateKeys } from '../http/rate-limit.ts';
import { replayToProvider } from '../http/replay-body.ts';
import { PATHS } from '../paths.ts';
import {
  type DeferredWrites,
  deferTokenWrites,
  prefetched,
  takeTokenWrites,
  wellFormed,
} from '../provider/adapter.ts';
import { withoutInternalScopes } from '../provider/scopes.ts';
import { authenticateClient, basicChallenge, type PresentedClient } from './client-auth.ts';
import { providerRefusal, readClientRequest, refuseOtherMethods } from './client-request.ts';
import { refreshGrant } from './refresh-grant.ts';
import { RefreshWindow, type TokenAnswer } from './refresh-window.ts';
import { GRANT_TYPES, tokenErrors } from './token-errors.ts';

/**
 * POST /v2/auth/oauth2/token in front of oidc-provider, as a named pipeline of small steps over one
 * typed request state (the way oidc-provider's own `lib/actions/token.js` is an array of named
 * middleware): read the request, check the grant type, resolve the client, authenticate it, count
 * the request against the client's limit, answer a retry within the refresh window, let the
 * provider run the grant, settle the store writes in one atomic step, answer. The order of checks
 * (client_id, grant_type, client, secret, approval, rate limit) is the order of the steps.
 */

/** Everything one token request knows, filled in step by step. */
export interface TokenRequest {
  /** The body as read (its bytes are passed on to the provider when nothing was dropped). */
  body: ReadBody;
  params: Params;
  presented: PresentedClient & { clientId: string };
  grantType: (typeof GRANT_TYPES)[number];
  /** HTTP Basic was used: 401 answers carry this `WWW-Authenticate` challenge. */
  challenge: Record<string, string> | undefined;
  client: OAuthClientWithSecrets | undefined;
  /** refresh_token grant: the token presented, when well formed. */
  refreshToken: string | undefined;
  /** refresh_token grant: its record, read with the client's cache version (handed to the provider). */
  refreshRecord: TokenPayload | undefined;
  /** The success body, once there is one. */
  answer: TokenAnswer | undefined;
  /** What our own refresh grant issued (refresh-grant.ts), settled instead of the provider's writes. */
  issued: DeferredWrites | undefined;
  /** What the provider threw (not a refusal it rendered), rethrown after the store is settled. */
  thrown: { error: unknown } | undefined;
  /** The count against the client's limit, awaited before anything is written or answered. */
  counted: Promise<void> | undefined;
}

interface Endpoint {
  deps: AuthDeps;
  window: RefreshWindow;
  ownRefresh: ReturnType<typeof refreshGrant>;
}

/** A step: done (answer or error thrown) or on to the next one. `next` is the provider. */
type Step = (endpoint: Endpoint, ctx: Context, request: TokenRequest, provider: Next) => Promise<void> | void;

/** The request (JSON or form, Basic or body credentials, client_id required) and its grant type. */
async function readRequest(ctx: Context): Promise<TokenRequest> {
  const { body, params, presented } = await readClientRequest(ctx).catch(severalResources);
  const grantType = params.grant_type;
  if (!grantType || !(GRANT_TYPES as readonly string[]).includes(grantType))
    throw tokenErrors.unsupportedGrantType();
  const refreshToken =
    grantType === 'refresh_token' && wellFormed(params.refresh_token) ? params.refresh_token : undefined;
  return {
    body,
    params,
    presented,
    grantType: grantType as TokenRequest['grantType'],
    challenge: undefined,
    client: undefined,
    refreshToken,
    refreshRecord: undefined,
    answer: undefined,
    issued: undefined,
    thrown: undefined,
    counted: undefined,
  };
}

/** A repeated `resource` is RFC 8707's way to name several: refused as a target, not as a repetition. */
function severalResources(error: unknown): never {
  if (error instanceof RepeatedParameterError && error.parameter === 'resource')
    throw tokenErrors.severalResources();
  throw error;
}

/**
 * The client; for a refresh its cache version comes with the refresh token in one store read, and
 * the record is handed on to oidc-provider so it does not read it again.
 */
const resolveClient: Step = async ({ deps }, ctx, request) => {
  const store = deps.runtime.stores.tokenStore;
  const { clientId } = request.presented;
  request.challenge = basicChallenge(deps.issuer, request.presented);
  if (!request.refreshToken) {
    request.client =
      (await deps
        .loadClient(ctx.state, clientId)
        .catch((error) => documentRefused(error, request.challenge))) ?? undefined;
    return;
  }
  const { record, versions } = await store.findWithVersions('RefreshToken', request.refreshToken, [
    clientVersionKey(clientId),
  ]);
  request.refreshRecord = record;
  prefetched(ctx.state, 'RefreshToken', request.refreshToken, record);
  request.client = (await deps.clients.remember(ctx.state, clientId, versions[0] ?? 0)) ?? undefined;
};

/** An agent whose metadata document cannot be used is not a client we can authenticate. */
function documentRefused(error: unknown, challenge: Record<string, string> | undefined): never {
  if (error instanceof AgentDocumentError)
    throw new OAuthError(401, 'invalid_client', error.message, challenge);
  throw error;
}

/** The client exists, proves a secret (confidential) or presents none (public), and is approved. */
const authenticate: Step = ({ deps }, _ctx, request) => {
  authenticateClient(request.client ?? null, request.presented, request.challenge, {
    agentPolicy: deps.runtime.config.agents.policy,
  });
};

/**
 * Only an authenticated request counts against its client's limit: anyone may send a client's id
 * with a wrong secret, and counting those would let them use up the client's allowance and lock
 * its users out. The count runs while the request goes on (the grant's reads share its round
 * trip); its answer is awaited before anything is written (`settle`) or answered.
 */
const countRequest: Step = ({ deps }, ctx, request) => {
  const counted = enforceLimit(
    deps.runtime.stores.tokenStore,
    rateKeys.tokenClient(request.presented.clientId),
    deps.runtime.config.rateLimits.token,
    'token requests',
    ctx.res,
  );
  // Awaited later; until then a refusal must not count as an unhandled rejection.
  counted.catch(() => {});
  request.counted = counted;
};

/**
 * A refresh token already used, within the retry window: the same client gets the
 * kept answer; another client's replay revokes the grant. Outside the window, or without a kept
 * answer, the provider's reuse detection decides. One extra store read, only for a used token.
 */
const answerRetry: Step = async ({ deps, window }, _ctx, request) => {
  const { refreshToken, refreshRecord: record } = request;
  if (!refreshToken || !window.on || typeof record?.consumed !== 'number') return;
  const { clientId } = request.presented;
  const kept = await deps.runtime.stores.tokenStore.find(window.ref(refreshToken).model, refreshToken);
  if (!kept) return;
  if (record.clientId === clientId) {
    request.answer = window.open(refreshToken, clientId, kept);
  } else if (typeof record.grantId === 'string') {
    await revokeGrant(deps, record.grantId);
    throw tokenErrors.invalidRefreshToken();
  }
};

/**
 * The grant: a plain refresh by our own grant (refresh-grant.ts); everything else by oidc-provider
 * on the parameters we read (a refresh keeps the scopes of the original authorization: `scope` is
 * not passed on), with the token writes deferred to `settle`. Its success becomes our success body
 * (`id_token` beside it when OpenID Connect issued one).
 */
const runGrant: Step = async ({ ownRefresh }, ctx, request, provider) => {
  const dropScope = request.grantType === 'refresh_token' && request.params.scope !== undefined;
  if (dropScope) delete request.params.scope;
  if (request.refreshToken && request.client) {
    const issued = await ownRefresh(
      ctx,
      request.client,
      request.refreshToken,
      request.refreshRecord,
      request.params,
    );
    if (issued) {
      request.answer = issued.answer;
      request.issued = issued.writes;
      return;
    }
  }
  replayToProvider(ctx, request.body, !dropScope);
  deferTokenWrites(ctx.state);
  try {
    await provider();
  } catch (error) {
    request.thrown = { error };
    return;
  }
  const body = ctx.body as Record<string, unknown> | undefined;
  if (ctx.status !== 200 || !body || typeof body.access_token !== 'string') return;
  request.answer = {
    access_token: body.access_token,
    refresh_token: body.refresh_token,
    token_type: 'bearer',
    expires_in: body.expires_in,
    scope: withoutInternalScopes(typeof body.scope === 'string' ? body.scope : ''),
    ...(typeof body.id_token === 'string' ? { id_token: body.id_token } : {}),
  };
};

/**
 * The consumption of the code or refresh token and the issued tokens in one atomic store step
 * (also when the grant failed after consuming: a consumed code or refresh token stays so). With
 * the retry window a refresh's answer is kept in the same step, and a request that lost the race
 * gets the winner's answer from it; otherwise the loser is refused as a replay.
 */
const settle: Step = async ({ deps, window }, ctx, request) => {
  // Over the limit: refused before any write (a code or refresh token is not used up).
  await request.counted;
  const store = deps.runtime.stores.tokenStore;
  const { consume, writes } = request.issued ?? takeTokenWrites(ctx.state);
  const { refreshToken, answer } = request;
  const { clientId } = request.presented;
  if (refreshToken && window.on && consume && answer) {
    const settlement = await store.consumeAndUpsertOrRead(
      consume,
      [...writes, window.keep(refreshToken, clientId, answer)],
      window.ref(refreshToken),
    );
    if (settlement.settled) return;
    request.answer = window.open(refreshToken, clientId, settlement.found);
    if (!request.answer) throw tokenErrors.invalidRefreshToken();
    return;
  }
  if (!consume && writes.length === 0) return;
  if (!(await store.consumeAndUpsert(consume, writes)) && !request.thrown) {
    throw request.grantType === 'refresh_token'
      ? tokenErrors.invalidRefreshToken()
      : tokenErrors.codeInvalidOrExpired();
  }
};

/** After the retry step and the grant: a request with an answer skips what is left. */
const UNTIL_ANSWERED: ReadonlyArray<[string, Step]> = [
  ['resolveClient', resolveClient],
  ['authenticate', authenticate],
  ['countRequest', countRequest],
  ['answerRetry', answerRetry],
];
const GRANT: ReadonlyArray<[string, Step]> = [
  ['runGrant', runGrant],
  ['settle', settle],
];

/** The pipeline's step names in order (readRequest first, answer last), for tests and logs. */
export const TOKEN_STEPS = [
  'readRequest',
  ...UNTIL_ANSWERED.map(([name]) => name),
  ...GRANT.map(([name]) => name),
  'answer',
] as const;

export function tokenEndpoint(deps: AuthDeps) {
  const endpoint: Endpoint = {
    deps,
    window: new RefreshWindow(deps.runtime.config.refreshReuseInterval, deps.runtime.config.cookieKeys),
    ownRefresh: refreshGrant(deps),
  };
  return async function tokenEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.token) return next();
    refuseOtherMethods(ctx);
    const request = await readRequest(ctx);
    for (const [, step] of UNTIL_ANSWERED) {
      await step(endpoint, ctx, request, next);
      if (request.answer) break;
    }
    if (!request.answer) for (const [, step] of GRANT) await step(endpoint, ctx, request, next);
    // answer (a retry's kept answer did not settle: its count is awaited here)
    await request.counted;
    if (request.thrown) throw request.thrown.error;
    if (request.answer) {
      ctx.status = 200;
      ctx.body = request.answer;
      return;
    }
    throw providerRefusal(ctx, request.grantType, request.challenge);
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
