import { KNOWN_SCOPES } from '@sched/policy/scopes';
import type { Context, Next } from 'koa';
import type { SigningKeyRing } from '../keys/key-ring.ts';
import { PATHS } from '../paths.ts';

/**
 * Members of oidc-provider's metadata that belong to OpenID Connect only: the OpenID document
 * (`/.well-known/openid-configuration`) has them, the RFC 8414 document does not (it keeps
 * `jwks_uri`, which RFC 8414 defines).
 */
const OPENID_ONLY = [
  'claims_parameter_supported',
  'claims_supported',
  'claim_types_supported',
  'id_token_signing_alg_values_supported',
  'subject_types_supported',
  'userinfo_endpoint',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'token_endpoint_auth_signing_alg_values_supported',
];

/** The claims an ID token or the userinfo endpoint may carry (provider/configuration.ts CLAIMS). */
const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'auth_time',
  'sid',
  'name',
  'preferred_username',
  'zoneinfo',
  'locale',
  'updated_at',
  'email',
  'email_verified',
];

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414) and GET /.well-known/openid-configuration
 * (OpenID Connect Discovery): oidc-provider's document with our scope catalogue (the OIDC scopes
 * included), the two grant types and only what we support. Both are built from APP_URL (the issuer
 * and every endpoint URL; the Host header is pinned to it). The OpenID document adds userinfo, the
 * ID-token algorithm, subject types and claims.
 */
export function discoveryDocument(keys: SigningKeyRing) {
  return async function discoveryDocumentMiddleware(ctx: Context, next: Next) {
    if (ctx.method !== 'GET') return next();
    const openid = ctx.path === PATHS.openidDiscovery;
    if (!openid && ctx.path !== PATHS.discovery) return next();
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status !== 200 || !body || typeof body !== 'object') return;
    const document: Record<string, unknown> = { ...body };
    if (openid) {
      document.subject_types_supported = ['public'];
      document.id_token_signing_alg_values_supported = [keys.settings.alg];
      document.claims_supported = CLAIMS_SUPPORTED;
      document.claims_parameter_supported = false;
      document.request_parameter_supported = false;
      document.request_uri_parameter_supported = false;
      delete document.claim_types_supported;
      delete document.token_endpoint_auth_signing_alg_values_supported;
    } else {
      for (const member of OPENID_ONLY) delete document[member];
    }
    document.scopes_supported = [...KNOWN_SCOPES];
    document.grant_types_supported = ['authorization_code', 'refresh_token'];
    document.response_types_supported = ['code'];
    document.response_modes_supported = ['query'];
    document.code_challenge_methods_supported = ['S256'];
    // The authorization response carries `iss` (RFC 9207): clients, agents above all, may check it.
    document.authorization_response_iss_parameter_supported = true;
    document.token_endpoint_auth_methods_supported = ['client_secret_basic', 'client_secret_post', 'none'];
    document.revocation_endpoint_auth_methods_supported = [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ];
    document.introspection_endpoint = `${String(document.issuer).replace(/\/$/, '')}${PATHS.introspect}`;
    document.introspection_endpoint_auth_methods_supported = ['client_secret_basic', 'client_secret_post'];
    ctx.body = document;
  };
}

/**
 * GET of the JWKS: the keys are brought up to date first (a rotation elsewhere is seen at once;
 * keys/key-ring.ts), then oidc-provider answers with the public parts of the active and retiring keys.
 */
export function jwksEndpoint(keys: SigningKeyRing) {
  return async function jwksEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path === PATHS.jwks && ctx.method === 'GET') await keys.ensureFresh();
    await next();
  };
}

/** The provider routes we expose; everything else of oidc-provider (logout, registration, ...) is a 404. */
const PROVIDER_ROUTES = new Set<string>([
  PATHS.authorize,
  PATHS.token,
  PATHS.revoke,
  PATHS.discovery,
  PATHS.openidDiscovery,
  PATHS.jwks,
  PATHS.userinfo,
  PATHS.register,
]);
const RESUME = new RegExp(`^${PATHS.authorize}/[A-Za-z0-9_-]+$`);

export const isProviderRoute = (path: string): boolean => PROVIDER_ROUTES.has(path) || RESUME.test(path);

/** Endpoints that take a client credential in the body or none, never a cookie: open to CORS. */
const BEARER_ENDPOINTS = new Set<string>([
  PATHS.token,
  PATHS.revoke,
  PATHS.introspect,
  PATHS.discovery,
  PATHS.openidDiscovery,
  PATHS.jwks,
  PATHS.userinfo,
  PATHS.register,
]);
export const isBearerEndpoint = (path: string): boolean =>
  BEARER_ENDPOINTS.has(path) || path.startsWith(PATHS.protectedResource);
