import { KNOWN_SCOPES } from '@sched/policy/scopes';
import type { Context, Next } from 'koa';
import { PATHS } from '../paths.ts';

/** Members of oidc-provider's metadata that belong to OpenID Connect, not to a pure OAuth server. */
const OPENID_ONLY = [
  'claims_parameter_supported',
  'claims_supported',
  'claim_types_supported',
  'id_token_signing_alg_values_supported',
  'jwks_uri',
  'subject_types_supported',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'token_endpoint_auth_signing_alg_values_supported',
];

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414): oidc-provider's document without the
 * OpenID Connect members, with our scope catalogue and the two grant types.
 */
export function discoveryDocument() {
  return async function discoveryDocumentMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.discovery || ctx.method !== 'GET') return next();
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status !== 200 || !body || typeof body !== 'object') return;
    const document: Record<string, unknown> = { ...body };
    for (const member of OPENID_ONLY) delete document[member];
    document.scopes_supported = [...KNOWN_SCOPES];
    document.grant_types_supported = ['authorization_code', 'refresh_token'];
    document.response_types_supported = ['code'];
    document.response_modes_supported = ['query'];
    document.code_challenge_methods_supported = ['S256'];
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

/** The provider routes we expose; everything else of oidc-provider (OpenID discovery, JWKS, ...) is a 404. */
const PROVIDER_ROUTES = new Set<string>([PATHS.authorize, PATHS.token, PATHS.revoke, PATHS.discovery]);
const RESUME = new RegExp(`^${PATHS.authorize}/[A-Za-z0-9_-]+$`);

export const isProviderRoute = (path: string): boolean => PROVIDER_ROUTES.has(path) || RESUME.test(path);

/** Endpoints that take a client credential in the body or none, never a cookie: open to CORS. */
const BEARER_ENDPOINTS = new Set<string>([PATHS.token, PATHS.revoke, PATHS.introspect, PATHS.discovery]);
export const isBearerEndpoint = (path: string): boolean => BEARER_ENDPOINTS.has(path);
