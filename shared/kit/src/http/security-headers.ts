import type { Context, Next } from 'koa';

/**
 * Headers every response of ours carries. Pages that may be framed (the onboarding embed)
 * replace the frame-ancestors directive themselves.
 */
const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Content-Security-Policy', "frame-ancestors 'none'"],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
];

export function securityHeaders() {
  return function securityHeadersMiddleware(ctx: Context, next: Next) {
    // Straight on the Node response: constant, valid strings need none of ctx.set's normalising
    // (which allocates arrays per call), and nothing has been sent yet.
    for (const [name, value] of HEADERS) ctx.res.setHeader(name, value);
    return next();
  };
}
