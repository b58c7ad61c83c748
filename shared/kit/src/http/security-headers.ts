import type { Context, Next } from 'koa';

/**
 * Headers every response of ours carries. Pages that may be framed (the onboarding embed)
 * replace the frame-ancestors directive themselves.
 */
export function securityHeaders() {
  return async function securityHeadersMiddleware(ctx: Context, next: Next) {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    await next();
  };
}
