import { protectedResourceMetadata, protectedResources } from '@sched/policy/protected-resources';
import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';

/**
 * GET /.well-known/oauth-protected-resource[/mcp] (RFC 9728): which authorization
 * server issues tokens for the API and for its MCP server, the read scopes a client starts with
 * (writes come by step-up) and that tokens go in the Authorization header. Built from BASE_URL and
 * the issuer (APP_URL), never from the request; cacheable for an hour.
 */
export function protectedResourceMetadataEndpoint(deps: AuthDeps) {
  const documents = new Map(
    Object.values(protectedResources(deps.runtime.config.baseUrl)).map((resource) => [
      resource.metadataPath,
      JSON.stringify(protectedResourceMetadata(resource, deps.issuer)),
    ]),
  );
  return function protectedResourceMetadataMiddleware(ctx: Context, next: Next) {
    const document = documents.get(ctx.path);
    if (document === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'application/json';
    ctx.body = document;
  };
}
