import type { Context, Next } from 'koa';
import { PATHS } from '../paths.ts';

const ID_TOKEN = 'idToken';

/**
 * The ID token of a token response (OpenID Connect, when `openid` was granted). The token
 * endpoint's wrapper (token.ts) answers with the contract's members only, so the ID token
 * oidc-provider issued is taken from its answer here (`captureIdToken`, inside the wrapper) and
 * put back into the final answer (`addIdToken`, outside it): `id_token` beside the contract's
 * members, for the authorization_code and refresh_token grants alike.
 */
export function addIdToken() {
  return async function addIdTokenMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.token || ctx.method !== 'POST') return next();
    await next();
    const idToken = ctx.state[ID_TOKEN];
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status === 200 && typeof idToken === 'string' && body && typeof body.access_token === 'string') {
      ctx.body = { ...body, id_token: idToken };
    }
  };
}

export function captureIdToken() {
  return async function captureIdTokenMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.token || ctx.method !== 'POST') return next();
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status === 200 && typeof body?.id_token === 'string') ctx.state[ID_TOKEN] = body.id_token;
  };
}
