import { generateKeyPairSync } from 'node:crypto';
import type { TokenStore } from '@sched/db/token-store/types';
import type { Knex } from 'knex';
import { AUTHORIZATION_CODE_TTL, type Config, SESSION_TTL } from '@sched/kit/config';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { EMBED_PARAMS, isEmbedParams } from '../embed-flow/flow.ts';
import { AuthorizationPageError } from '../errors.ts';
import { ID_TOKEN_TTL, type SigningAlg } from '../keys/signing-keys.ts';
import { PATHS, interactionPath } from '../paths.ts';
import { agentProviderOptions, validateAgentMetadata } from './agent-options.ts';
import type { FindAccount } from './account.ts';
import { adapterFactory, type RecordRegisteredClient } from './adapter.ts';
import type { ClientLoader } from './clients.ts';
import { grantIsLegacy, loadExistingGrant } from './grants.ts';
import { resourceIndicators } from './resources.ts';
import { PROVIDER_SCOPES } from './scopes.ts';

const MINUTE = 60;
const DAY = 24 * 60 * MINUTE;

/**
 * Lifetimes (seconds). Codes live 60 seconds; access and refresh tokens come from the
 * config (ACCESS_TOKEN_TTL, default 30 minutes; REFRESH_TOKEN_TTL, default 30 days: each refresh
 * token lives that long from its issue, and every use rotates it).
 */
export const TTL = {
  AuthorizationCode: AUTHORIZATION_CODE_TTL,
  /** An authorization lasts a year of refreshing; then the user authorizes again. */
  Grant: 365 * DAY,
  /** A sign-in / consent step in progress. */
  Interaction: 60 * MINUTE,
  /** The browser session at the authorization server (no second sign-in for 14 days). */
  Session: SESSION_TTL,
  /** ID tokens (OpenID Connect); a retired signing key stays published this long and a margin more. */
  IdToken: ID_TOKEN_TTL,
} as const;

export interface ProviderConfigurationInput {
  knex: Knex;
  store: TokenStore;
  /** oidc-provider's `findAccount`, shared with our own refresh grant (endpoints/refresh-grant.ts). */
  findAccount: FindAccount;
  loadClient: ClientLoader;
  cookieKeys: string[];
  secureCookies: boolean;
  /** ID_TOKEN_SIGNING_ALG: what ID tokens are signed with (the keys come from the database, keys/). */
  signingAlg: SigningAlg;
  /** ACCESS_TOKEN_TTL and REFRESH_TOKEN_TTL (seconds). */
  tokenTtl: { accessToken: number; refreshToken: number };
  /** BASE_URL: the resource API and its MCP server are the two resources (RFC 8707) tokens may name. */
  baseUrl: string;
  /** Agent clients: metadata documents and dynamic registration (agents/). */
  agents: Config['agents'];
  outboundPrivateNetworks: boolean;
  registerClient: RecordRegisteredClient;
}

/**
 * Claims per OIDC scope (the values come from findAccount's `claims`). `auth_time` goes with
 * `openid`, so every ID token has it (oidc-provider's `require_auth_time` would refuse requests
 * without `openid`).
 */
const CLAIMS = {
  openid: ['sub', 'auth_time'],
  profile: ['name', 'preferred_username', 'zoneinfo', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  auth_time: null,
  sid: null,
  acr: null,
  iss: null,
};

/**
 * oidc-provider as an OAuth 2.0 authorization server with OpenID Connect on top: authorization code
 * (+ PKCE) and refresh token grants, opaque access tokens in the token store, ID tokens when
 * `openid` is granted (claims of `profile` and `email` in them and at userinfo), JWKS from the
 * database's keys (keys/), audiences by resource indicators (resources.ts); agent clients by
 * metadata document and, when on, dynamic registration (agents/); no logout, PAR or DPoP; our own
 * interaction pages.
 */
export function providerConfiguration(input: ProviderConfigurationInput): Configuration {
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: input.secureCookies };
  const agents = agentProviderOptions(input.agents, input.outboundPrivateNetworks);
  return {
    adapter: adapterFactory(input.store, input.loadClient, input.registerClient),
    findAccount: input.findAccount,
    clients: [],
    // Replaced by the database's keys before anything is signed or published (keys/key-ring.ts).
    jwks: placeholderSigningKeys(input.signingAlg),
    // One algorithm for every client.
    clientDefaults: { id_token_signed_response_alg: input.signingAlg },
    claims: CLAIMS,
    // The ID token carries the claims of the granted scopes too, not only userinfo.
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    scopes: [...PROVIDER_SCOPES],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    allowOmittingSingleRegisteredRedirectUri: false,
    extraClientMetadata: { properties: ['secret_hashes'], validator: validateAgentMetadata },
    fetch: agents.fetch,
    fetchResponseBodyLimits: agents.fetchResponseBodyLimits,
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    ttl: { ...TTL, AccessToken: input.tokenTtl.accessToken, RefreshToken: input.tokenTtl.refreshToken },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    extraTokenClaims: async (ctx) => ({ legacy: grantIsLegacy(ctx) }),
    loadExistingGrant: consentClickedInEmbed(
      loadExistingGrant(input.knex, input.loadClient, input.agents.pendingScopes),
    ),
    // The onboarding embed's parameters travel with the authorization request (src/embed/flow.ts).
    extraParams: [...EMBED_PARAMS],
    interactions: { url: async (_ctx, interaction) => interactionPath(interaction.uid) },
    cookies: {
      keys: input.cookieKeys,
      names: { session: 'auth.session', interaction: 'auth.interaction', resume: 'auth.resume' },
      long: cookie,
      short: cookie,
    },
    routes: {
      authorization: PATHS.authorize,
      token: PATHS.token,
      revocation: PATHS.revoke,
      registration: PATHS.register,
      jwks: PATHS.jwks,
      userinfo: PATHS.userinfo,
      // Not served (see isProviderRoute); kept under our prefix all the same.
      end_session: '/auth/oauth2/end-session',
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      resourceIndicators: resourceIndicators(input.baseUrl, input.tokenTtl.accessToken),
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      introspection: { enabled: false },
      clientCredentials: { enabled: false },
      ...agents.features,
      claimsParameter: { enabled: false },
      revocation: {
        enabled: true,
        // Another client's token is left alone, and the answer is 200 all the same (RFC 7009).
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
    },
    // CORS of the bearer endpoints is answered by our own middleware (any origin, no credentials,
    // @sched/kit/http/cors) before the provider runs; the provider must not narrow it again.
    clientBasedCORS: () => true,
    renderError,
  };
}

/**
 * In the onboarding embed (a frame on another site) consent always takes a fresh click: a
 * remembered consent does not approve silently there, only the grant the consent step just made
 * counts. Everywhere else remembered consent works as before.
 */
function consentClickedInEmbed(
  load: NonNullable<Configuration['loadExistingGrant']>,
): NonNullable<Configuration['loadExistingGrant']> {
  return async (ctx) => {
    if (
      isEmbedParams(ctx.oidc.params as Record<string, unknown> | undefined) &&
      !ctx.oidc.result?.consent?.grantId
    )
      return undefined;
    return load(ctx);
  };
}

/**
 * oidc-provider needs a key at construction, before the database's keys are read (they are loaded
 * asynchronously; the app is built synchronously). A throwaway key of the configured algorithm
 * fills the gap; it is replaced before any ID token is signed or any JWKS served (keys/key-ring.ts).
 */
function placeholderSigningKeys(alg: SigningAlg): { keys: Array<Record<string, unknown>> } {
  const { privateKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), alg, use: 'sig', kid: 'placeholder' }] };
}

/**
 * oidc-provider's own error rendering. Authorization errors it cannot redirect become our error page
 * (thrown, so render-errors.ts renders them like every other page error); on the JSON endpoints the
 * RFC 6749 body is kept for the endpoint wrappers to map onto our documented errors.
 */
async function renderError(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }) {
  const route = ctx.oidc?.route;
  if (route === 'authorization' || route === 'resume') {
    throw new AuthorizationPageError(
      'This request cannot continue',
      out.error === 'invalid_request' && /interaction|session/i.test(out.error_description ?? '')
        ? 'This sign-in request has expired or was already completed.'
        : (out.error_description ?? out.error),
    );
  }
  ctx.type = 'application/json';
  ctx.body = out;
}
