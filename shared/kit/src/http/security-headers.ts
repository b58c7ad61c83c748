import type { Context, Next } from 'koa';

/**
 * Headers every response of ours carries. Pages that may be framed (the onboarding embed)
 * replace the frame-ancestors directive themselves. Served over https (the configured public
 * URL says so), every response also carries Strict-Transport-Security.
 */
const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Content-Security-Policy', "frame-ancestors 'none'"],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
];

/** A year, subdomains included: the value browsers' preload lists ask for, without preloading. */
export const HSTS = 'max-age=31536000; includeSubDomains';

export function securityHeaders(options: { publicUrl: string }) {
  const setHeaders = securityHeaderSetter(options);
  return function securityHeadersMiddleware(ctx: Context, next: Next) {
    setHeaders(ctx);
    return next();
  };
}

/**
 * The headers for the public URLs a response may be reached at: Strict-Transport-Security added
 * when one is https (a process serving both services answers on APP_URL and BASE_URL; browsers
 * ignore HSTS received over plain http). The HTTP server's own answers use it too (server.ts).
 */
export function securityHeaderList(publicUrls: readonly string[]): ReadonlyArray<readonly [string, string]> {
  return publicUrls.some((url) => url.startsWith('https:'))
    ? [...HEADERS, ['Strict-Transport-Security', HSTS]]
    : HEADERS;
}

/** The headers' step alone (the resource API's entry middleware runs it, service-entry.ts). */
export function securityHeaderSetter(options: { publicUrl: string }): (ctx: Context) => void {
  const headers = securityHeaderList([options.publicUrl]);
  return (ctx) => {
    // Straight on the Node response: constant, valid strings need none of ctx.set's normalising
    // (which allocates arrays per call), and nothing has been sent yet.
    const res = ctx.res;
    for (const [name, value] of headers) res.setHeader(name, value);
  };
}

/**
 * Every URL the service builds from the request (oidc-provider's endpoint URLs in discovery,
 * redirects to its own pages) comes from the configured public URL, never from the Host or
 * X-Forwarded-Host header a client sent: otherwise `Host: evil.example` would advertise endpoints
 * on evil.example.
 */
export function pinnedOrigin(publicUrl: string) {
  const url = new URL(publicUrl);
  const protocol = url.protocol.slice(0, -1);
  return function pinnedOriginMiddleware(ctx: Context, next: Next) {
    const headers = ctx.req.headers;
    headers.host = url.host;
    delete headers['x-forwarded-host'];
    if (ctx.protocol !== protocol) Object.defineProperty(ctx.request, 'protocol', { value: protocol });
    return next();
  };
}
