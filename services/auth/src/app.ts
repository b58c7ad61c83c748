import { requestContext } from '@sched/kit/http/request-context';
import { bearerCors } from '@sched/kit/http/cors';
import { pinnedOrigin, securityHeaders } from '@sched/kit/http/security-headers';
import { rejectUnfitTarget } from '@sched/kit/http/unfit-text';
import type { Runtime } from '@sched/runtime/runtime';
import type Koa from 'koa';
import type { Context, Next } from 'koa';
import type { AuthDeps } from './deps.ts';
import { authorizationRequest } from './endpoints/authorize.ts';
import { discoveryDocument, isBearerEndpoint, jwksEndpoint } from './endpoints/discovery.ts';
import { protectedResourceMetadataEndpoint } from './endpoints/protected-resource.ts';
import { introspectionEndpoint } from './endpoints/introspect.ts';
import { revocationEndpoint } from './endpoints/revoke.ts';
import { tokenEndpoint } from './endpoints/token.ts';
import { endpointTable } from './endpoints/table.ts';
import { PATHS } from './paths.ts';
import { adminRoutes } from './admin/routes.ts';
import { embedAuthorization, embedRequests } from './embed/entry.ts';
import { renderEmbedErrors } from './embed/render-errors.ts';
import { calendarConnectRoutes } from './calendars/routes.ts';
import { embedRoutes } from './embed/routes.ts';
import { showEmbedStep } from './embed/steps.ts';
import { pageRoutes } from './interaction/routes.ts';
import { AgentClients } from './agents/resolver.ts';
import { recordRegisteredClient, registrationEndpoint } from './agents/registration.ts';
import { ClientDirectory } from './provider/clients.ts';
import { findAccount } from './provider/account.ts';
import { createProvider } from './provider/create.ts';
import { startSigningKeyRing, useSigningKeyRing } from './keys/key-ring.ts';
import { renderErrors } from './render-errors.ts';
import { settingsRoutes } from './settings/routes.ts';

/** Path prefixes the authorization server answers; the gateway and the launcher route these here. */
export const AUTH_PATH_PREFIXES = ['/auth/', '/.well-known/', '/v2/auth/oauth2/'] as const;

export function isAuthPath(path: string): boolean {
  // `/` is the landing page.
  return path === '/' || AUTH_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * The browser pages' routers (landing page and everything under /auth/) run only for those paths:
 * @koa/router tests each of its routes against every request, which the token, revocation and
 * introspection endpoints (under /v2/auth/oauth2/) and the discovery documents need not pay for.
 */
function pagesOnly<M extends (ctx: never, next: Next) => unknown>(routes: M) {
  return function pagesOnlyMiddleware(ctx: Context, next: Next) {
    const path = ctx.path;
    return path === '/' || path.startsWith('/auth/') ? routes(ctx as never, next) : next();
  };
}

/**
 * The authorization server as a Koa app: oidc-provider (itself a Koa app) with our pages and
 * endpoint wrappers mounted in front of its router.
 */
export function createAuthApp(runtime: Runtime): Koa {
  const clients = new ClientDirectory(runtime.stores.db.knex, runtime.stores.tokenStore);
  // oidc-provider reads rows through the directory; our checks and pages through the agents'
  // loader, which also resolves and records agents known by their metadata document.
  const accounts = findAccount(runtime.stores.db.knex);
  const provider = createProvider(runtime, clients.load, recordRegisteredClient(runtime), accounts);
  const agents = new AgentClients(clients, runtime.config.agents);
  agents.provider = provider;
  const loadClient = agents.load;
  const signingKeys = startSigningKeyRing(runtime);
  useSigningKeyRing(provider, signingKeys);
  const issuer = runtime.config.appUrl;
  const deps: AuthDeps = {
    runtime,
    provider,
    issuer,
    clients,
    loadClient,
    findAccount: accounts,
    csrf: { keys: runtime.config.cookieKeys, secure: new URL(issuer).protocol === 'https:' },
  };
  const pages = pageRoutes(deps, { embed: showEmbedStep });
  const discovery = discoveryDocument(signingKeys);

  provider.silent = true;
  provider.use(requestContext('auth', runtime.logger, { accessLog: runtime.config.accessLog }));
  provider.use(pinnedOrigin(issuer));
  provider.use(securityHeaders({ publicUrl: issuer }));
  provider.use(bearerCors(isBearerEndpoint));
  provider.use(renderErrors(issuer));
  provider.use(rejectUnfitTarget());
  provider.use(
    endpointTable(
      {
        [PATHS.token]: tokenEndpoint(deps),
        [PATHS.revoke]: revocationEndpoint(deps),
        [PATHS.introspect]: introspectionEndpoint(deps),
        [PATHS.register]: registrationEndpoint(runtime),
        [PATHS.discovery]: discovery,
        [PATHS.openidDiscovery]: discovery,
        [PATHS.jwks]: jwksEndpoint(signingKeys),
      },
      [
        renderEmbedErrors(),
        pagesOnly(pages.routes()),
        pagesOnly(settingsRoutes(deps).routes()),
        pagesOnly(adminRoutes(deps).routes()),
        pagesOnly(embedRoutes(deps).routes()),
        pagesOnly(calendarConnectRoutes(deps).routes()),
        embedRequests(deps),
        protectedResourceMetadataEndpoint(deps),
        authorizationRequest(deps),
        embedAuthorization(),
      ],
    ),
  );
  return provider;
}
