import { generateKeyPairSync } from 'node:crypto';
import type { TokenStore } from '@sched/db/token-store/types';
import type { Knex } from 'knex';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { EMBED_PARAMS, isEmbedParams } from '../embed/flow.ts';
import { AuthorizationPageError } from '../errors.ts';
import { PATHS, interactionPath } from '../paths.ts';
import { findAccount } from './account.ts';
import { adapterFactory } from './adapter.ts';
import type { ClientLoader } from './clients.ts';
import { grantIsLegacy, loadExistingGrant } from './grants.ts';
import { PROVIDER_SCOPES } from './scopes.ts';

const MINUTE = 60;
const DAY = 24 * 60 * MINUTE;

/** Lifetimes (seconds). Access tokens, codes and refresh tokens are fixed by the contract. */
export const TTL = {
  AccessToken: 30 * MINUTE,
  AuthorizationCode: 60,
  /** Each refresh token lives 30 days from its issue; every use rotates it. */
  RefreshToken: 30 * DAY,
  /** An authorization lasts a year of refreshing; then the user authorizes again. */
  Grant: 365 * DAY,
  /** A sign-in / consent step in progress. */
  Interaction: 60 * MINUTE,
  /** The browser session at the authorization server (no second sign-in for 14 days). */
  Session: 14 * DAY,
} as const;

export interface ProviderConfigurationInput {
  knex: Knex;
  store: TokenStore;
  loadClient: ClientLoader;
  cookieKeys: string[];
  secureCookies: boolean;
}

/**
 * oidc-provider as a pure OAuth 2.0 authorization server: authorization code (+ PKCE) and refresh
 * token grants, opaque access tokens in the token store, no OpenID Connect surface (no ID tokens,
 * userinfo, JWKS, logout, dynamic registration, PAR, DPoP), our own interaction pages.
 */
export function providerConfiguration(input: ProviderConfigurationInput): Configuration {
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: input.secureCookies };
  return {
    adapter: adapterFactory(input.store, input.loadClient),
    findAccount: findAccount(input.knex),
    clients: [],
    jwks: unusedSigningKeys(),
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    responseTypes: ['code'],
    scopes: [...PROVIDER_SCOPES],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    allowOmittingSingleRegisteredRedirectUri: false,
    extraClientMetadata: { properties: ['secret_hashes'] },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    ttl: { ...TTL },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    extraTokenClaims: async (ctx) => ({ legacy: grantIsLegacy(ctx) }),
    loadExistingGrant: consentClickedInEmbed(loadExistingGrant(input.knex, input.loadClient)),
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
      // Not served (see isProviderRoute); kept under our prefix all the same.
      jwks: '/auth/oauth2/jwks',
      end_session: '/auth/oauth2/end-session',
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      resourceIndicators: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      introspection: { enabled: false },
      clientCredentials: { enabled: false },
      registration: { enabled: false },
      claimsParameter: { enabled: false },
      revocation: {
        enabled: true,
        // Another client's token is left alone, and the answer is 200 all the same (RFC 7009).
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
    },
    // Browser-based public clients may call the token endpoint from their redirect URIs' origins.
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
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
 * oidc-provider's client schema insists on an ID-token signing algorithm it holds a key for, even
 * though this server never issues ID tokens (no `openid` scope). A throwaway key per process
 * satisfies it; it signs nothing and is not published.
 */
function unusedSigningKeys(): { keys: Array<Record<string, unknown>> } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' }] };
}

/**
 * oidc-provider's own error rendering. Authorization errors it cannot redirect become our error page
 * (thrown, so render-errors.ts renders them like every other page error); on the JSON endpoints the
 * RFC 6749 body is kept for the endpoint wrappers to map onto the contract.
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
