import { createHmac } from 'node:crypto';
import { constantTimeEqual, randomToken } from '@sched/kit/secrets';
import type { Context } from 'koa';
import { CsrfError } from '../errors.ts';

/**
 * CSRF tokens for every form: a random per-browser secret in an HttpOnly, SameSite cookie, and in
 * the form an HMAC of that secret and the form's purpose (the interaction uid), keyed with the
 * cookie keys. A page of one interaction cannot be replayed into another, and another site can
 * neither read the cookie nor compute the token.
 */
export const CSRF_COOKIE = 'auth.csrf';
export const CSRF_FIELD = '_csrf';

export interface CsrfOptions {
  keys: readonly string[];
  secure: boolean;
}

const tokenFor = (key: string, secret: string, purpose: string) =>
  createHmac('sha256', key).update(`${secret}\u0000${purpose}`).digest('base64url');

/** The token to put in a form for `purpose`; sets the browser secret when it has none. */
export function issueCsrfToken(ctx: Context, options: CsrfOptions, purpose: string): string {
  let secret = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  if (!secret) {
    secret = randomToken(32);
    ctx.cookies.set(CSRF_COOKIE, secret, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: options.secure,
      path: '/auth/',
      overwrite: true,
    });
  }
  return tokenFor(options.keys[0]!, secret, purpose);
}

/** Throws CsrfError unless `submitted` is the token of this browser and purpose (any cookie key). */
export function verifyCsrfToken(
  ctx: Context,
  options: CsrfOptions,
  purpose: string,
  submitted: string | undefined,
): void {
  const secret = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  if (!secret || !submitted) throw new CsrfError();
  let ok = false;
  for (const key of options.keys) ok = constantTimeEqual(tokenFor(key, secret, purpose), submitted) || ok;
  if (!ok) throw new CsrfError();
}
