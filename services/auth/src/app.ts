import { errorEnvelope } from '@sched/kit/http/error-envelope';
import { requestContext } from '@sched/kit/http/request-context';
import { securityHeaders } from '@sched/kit/http/security-headers';
import type { Runtime } from '@sched/runtime/runtime';
import Koa from 'koa';

/** Path prefixes the authorization server answers; the gateway and the launcher route these here. */
export const AUTH_PATH_PREFIXES = ['/auth/', '/.well-known/', '/v2/auth/oauth2/'] as const;

export function isAuthPath(path: string): boolean {
  return AUTH_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** The authorization server as a Koa app (oidc-provider and the browser pages mount here). */
export function createAuthApp(deps: Runtime): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy, keys: deps.config.cookieKeys });
  app.silent = true;
  app.use(requestContext('auth', deps.logger));
  app.use(securityHeaders());
  app.use(errorEnvelope());
  return app;
}
