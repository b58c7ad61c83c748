import { serviceEntry } from '@sched/kit/http/service-entry';
import type { Runtime } from '@sched/runtime/runtime';
import { calendarErrorToAppError } from '@sched/calendars/connect-errors';
import Koa from 'koa';
import { resourceMetadataChallenge } from './auth/resource-challenge.ts';
import { dataErrorToAppError } from './errors/data-errors.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { jsonBody } from './middleware/json-body.ts';
import { isDocsPage, mountDocs } from './openapi/mount.ts';
import { routes } from './routes/index.ts';
import { mountRoutes } from './pipeline/mount.ts';
import type { AnyRoute } from './routing/route.ts';
import { RouteTable } from './routing/route-table.ts';

const PREFIX = '/v2';

/**
 * The resource API (/v2) and its MCP server (/mcp) as a Koa app; main.ts (standalone) or the launcher (all-in-one) serves it.
 * `routeList` is every declared route unless given (tests mount declarations of their own).
 */
export function createApiApp(deps: Runtime, routeList: readonly AnyRoute[] = routes): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  app.silent = true; // errors are rendered and logged by errorEnvelope
  // Compiled once: routes, then the docs (a route declared with the same path would win).
  const table = new RouteTable(PREFIX);
  const control = mountRoutes(table, routeList, deps);
  mountDocs(table, routeList, deps.config);
  const addChallenge = resourceMetadataChallenge(control.resources);

  // Request context, security headers, CORS (bearer credentials only, no cookies: any origin may
  // call the API from a browser; none on the docs page, a page), the error envelope with the
  // resources' Bearer challenge, and the request target's check: one middleware
  // (kit/http/service-entry.ts), the hot path's cost.
  app.use(
    serviceEntry({
      service: 'api',
      logger: deps.logger,
      accessLog: deps.config.accessLog,
      publicUrl: deps.config.baseUrl,
      bearerCors: (path) => !isDocsPage(PREFIX, path),
      translate: (error) => dataErrorToAppError(error) ?? calendarErrorToAppError(error),
      finish: (ctx) => {
        addChallenge(ctx);
        // An error given before the route ran (a body the parser refused, a refused target) is
        // an answer on its path too: a deprecated path's carries the deprecation headers.
        if (ctx.status >= 400) table.setPathHeaders(ctx);
      },
    }),
  );
  app.use(jsonBody());
  // The MCP server (/mcp): tools from the same declarations, same caches (src/mcp/).
  app.use(mcpEndpoint(routeList, control));
  app.use(table.middleware());
  return app;
}
