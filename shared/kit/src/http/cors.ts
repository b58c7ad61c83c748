import type { Context, Next } from 'koa';

/**
 * CORS for endpoints that take a bearer credential or none (the resource API, the token,
 * revocation and discovery endpoints): any origin may call them from a browser, because nothing
 * there rides on cookies, so no credentials are allowed and the origin is `*`. Pages and other
 * cookie-based endpoints never get these headers (they are not mounted there).
 */
const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
// Mcp-Protocol-Version: MCP clients in a browser (the MCP server at /mcp).
// x-svc-secret-key: the API's deprecated managed-user routes (/v2/oauth-clients/{clientId}/users*)
// authenticate with it instead of Authorization.
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id, Mcp-Protocol-Version, x-svc-secret-key';
const EXPOSE_HEADERS =
  'WWW-Authenticate, X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Deprecation, Sunset';
/** Browsers cap it (Chromium at 2 hours); a day asks for the most each allows. */
const PREFLIGHT_MAX_AGE = '86400';

export function bearerCors(applies: (path: string) => boolean = () => true) {
  const answer = bearerCorsStep(applies);
  return function bearerCorsMiddleware(ctx: Context, next: Next) {
    return answer(ctx) ? undefined : next();
  };
}

/**
 * The CORS step alone: sets the headers when a browser asks (an Origin), and answers a preflight
 * itself (204; returns true: nothing more to do). The resource API's entry middleware runs it.
 */
export function bearerCorsStep(applies: (path: string) => boolean = () => true): (ctx: Context) => boolean {
  return (ctx) => {
    if (ctx.req.headers.origin === undefined || !applies(ctx.path)) return false;
    const res = ctx.res;
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (ctx.method === 'OPTIONS' && ctx.req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
      res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      ctx.status = 204;
      return true;
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    return false;
  };
}
