import { redirectUriAllowed } from '@sched/policy/redirect-uris';
import { checkAuthorizationScopes } from '@sched/policy/authorization-scopes';
import { protectedResources } from '@sched/policy/protected-resources';
import {
  agentRequestedScopes,
  agentScopeCeiling,
  errorRedirectAllowed,
  isAgentRegistration,
} from '@sched/policy/agent-clients';
import { isKnownScope, parseScopeParameter } from '@sched/policy/scopes';
import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { AgentDocumentError } from '../agents/errors.ts';
import { AuthorizationPageError, AuthorizationRedirectError } from '../errors.ts';
import { reviewRefusal } from './client-review.ts';
import { singleQueryValue } from '../http/params.ts';
import { PATHS } from '../paths.ts';
import { requestedResource } from '../provider/resources.ts';
import { providerScopeParameter } from '../provider/scopes.ts';

const PAGE = {
  clientIdMissing: () =>
    new AuthorizationPageError(
      'Unknown application',
      'The request does not name an application (client_id is missing).',
    ),
  unknownClient: () =>
    new AuthorizationPageError('Unknown application', 'No application is registered with this client_id.'),
  pending: () =>
    new AuthorizationPageError(
      'Application not approved yet',
      'This application is waiting for review and cannot be used yet.',
    ),
  rejected: () =>
    new AuthorizationPageError(
      'Application not approved',
      'This application was rejected during review and cannot be used.',
    ),
  redirectUri: () =>
    new AuthorizationPageError(
      'Invalid redirect address',
      'The redirect_uri of this request is not one of the addresses registered for this application.',
    ),
  scopeRequired: (message: string) => new AuthorizationPageError('Missing permissions', message),
  document: (message: string) => new AuthorizationPageError('Application cannot be used', message),
  unverifiedRedirect: (redirectUri: string, description: string) =>
    new AuthorizationPageError(
      'Application not verified',
      `This application has not been verified by an administrator, so this page does not send you on to ${new URL(redirectUri).host}. The request was refused: ${description}`,
    ),
  pkceRequired: () =>
    new AuthorizationPageError(
      'Missing code challenge',
      'code_challenge is required for this application (public clients must use PKCE with S256).',
    ),
};

/**
 * GET /auth/oauth2/authorize, checked before oidc-provider sees it (docs/client-developers.md
 * "Errors a client sees"): errors shown on the page (unknown client, not approved, unregistered
 * redirect_uri, missing scope, missing PKCE challenge of a public client) and errors redirected to
 * the client (unknown scope -> invalid_scope, scope not enabled on the client -> invalid_request).
 * The request is then normalised for the provider: response_type defaults to `code`,
 * code_challenge_method to S256, comma-separated scopes become space-separated.
 */
export function authorizationRequest(deps: AuthDeps) {
  const resources = protectedResources(deps.runtime.config.baseUrl);
  // The guard is not async: every request passes it, and only authorization requests need a promise.
  return function authorizationRequestMiddleware(ctx: Context, next: Next) {
    return ctx.path === PATHS.authorize && ctx.method === 'GET' ? check(ctx, next) : next();
  };
  async function check(ctx: Context, next: Next): Promise<void> {
    const clientId = singleQueryValue(ctx, 'client_id');
    if (!clientId) throw PAGE.clientIdMissing();
    const client = await deps.loadClient(ctx.state, clientId).catch((error: unknown) => {
      if (error instanceof AgentDocumentError) throw PAGE.document(error.message);
      throw error;
    });
    if (!client) throw PAGE.unknownClient();
    const refusal = reviewRefusal(client, deps.runtime.config.agents.policy);
    if (refusal === 'unknown') throw PAGE.unknownClient();
    if (refusal === 'pending') throw PAGE.pending();
    if (refusal === 'rejected') throw PAGE.rejected();
    const redirectUri = singleQueryValue(ctx, 'redirect_uri');
    if (!redirectUri || !redirectUriAllowed(client.redirectUris, redirectUri)) throw PAGE.redirectUri();
    if (errorRedirectAllowed(client.registration, client.reviewStatus, redirectUri))
      return checked(ctx, next, client, redirectUri);
    // An unverified agent's errors stay here: its redirect URI is whatever its document says.
    try {
      await checked(ctx, next, client, redirectUri);
    } catch (error) {
      if (error instanceof AuthorizationRedirectError)
        throw PAGE.unverifiedRedirect(redirectUri, error.message);
      throw error;
    }
    const refused = errorRedirect(ctx);
    if (refused) {
      ctx.remove('Location');
      throw PAGE.unverifiedRedirect(redirectUri, refused);
    }
  }

  async function checked(
    ctx: Context,
    next: Next,
    client: OAuthClientWithSecrets,
    redirectUri: string,
  ): Promise<void> {
    const state = singleQueryValue(ctx, 'state');
    const codeChallenge = singleQueryValue(ctx, 'code_challenge');
    let requested = parseScopeParameter(singleQueryValue(ctx, 'scope'));
    // Without `scope`, a request for one of our resources asks for its metadata's scopes_supported
    // that the client may have (MCP clients take them from the resource metadata).
    const resource = requestedResource(resources, ctx.query);
    if (requested.length === 0 && resource) {
      requested = resource.scopes.filter((scope) => client.scopes.includes(scope));
    }
    const checked = isAgentRegistration(client.registration)
      ? checkAgentScopes(client, requested, deps.runtime.config.agents.pendingScopes, redirectUri, state)
      : checkAuthorizationScopes({ requested, clientScopes: client.scopes, legacyClient: client.isLegacy });
    if (!checked.ok && checked.error === 'scope_required') throw PAGE.scopeRequired(checked.description);
    if (client.clientType === 'public' && !codeChallenge) throw PAGE.pkceRequired();
    if (!checked.ok)
      throw new AuthorizationRedirectError(redirectUri, state, checked.error, checked.description);
    const responseType = singleQueryValue(ctx, 'response_type');
    if (responseType !== undefined && responseType !== 'code') {
      throw new AuthorizationRedirectError(
        redirectUri,
        state,
        'unsupported_response_type',
        'response_type must be code',
      );
    }
    const responseMode = singleQueryValue(ctx, 'response_mode');
    if (responseMode !== undefined && responseMode !== 'query') {
      throw new AuthorizationRedirectError(
        redirectUri,
        state,
        'invalid_request',
        'response_mode must be query',
      );
    }

    const query = { ...ctx.query };
    query.response_type ??= 'code';
    query.scope = providerScopeParameter(checked.scopes);
    if (codeChallenge) query.code_challenge_method ??= 'S256';
    ctx.query = query;
    await next();
  }
}

/** The description (or code) of an error the provider redirected with; null for anything else. */
function errorRedirect(ctx: Context): string | null {
  if (ctx.status < 300 || ctx.status >= 400) return null;
  const location = URL.parse(ctx.response.get('Location'));
  const error = location?.searchParams.get('error');
  if (!error) return null;
  return location?.searchParams.get('error_description') ?? error;
}

export const WITHHELD_DESCRIPTION =
  'The requested scopes are not available to this application until an administrator verifies it';

/**
 * An agent's scopes: what it asks for within its ceiling (AGENT_PENDING_SCOPES while it waits for
 * review, every API scope once approved: @sched/policy/agent-clients); the rest is left out, and
 * the consent page lists only what is granted. No scope asked: the user's own read scopes within
 * the ceiling. Nothing left: `invalid_scope` back to the agent.
 */
function checkAgentScopes(
  client: OAuthClientWithSecrets,
  requested: string[],
  pendingScopes: readonly string[],
  redirectUri: string,
  state: string | undefined,
) {
  const ceiling = agentScopeCeiling(client.reviewStatus, pendingScopes);
  const narrowed = agentRequestedScopes(requested, ceiling, isKnownScope);
  if (narrowed.scopes.length === 0)
    throw new AuthorizationRedirectError(redirectUri, state, 'invalid_scope', WITHHELD_DESCRIPTION);
  return checkAuthorizationScopes({ requested: narrowed.scopes, clientScopes: ceiling, legacyClient: false });
}
