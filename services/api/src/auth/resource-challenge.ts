import { MCP_PATH, type ProtectedResource, type ResourceName } from '@sched/policy/protected-resources';
import type { Context } from 'koa';

/**
 * Every 401 and 403 Bearer challenge of /v2 and /mcp names the resource's metadata (RFC 9728
 * section 5.1: `resource_metadata="<url>"`), so a client that only knows the URL it called can
 * find the authorization server and the scopes (MCP authorization, docs/mcp.md). The errors
 * themselves say only what went wrong (`error=`, `scope=`); the resource is known here, by path.
 */
export function resourceMetadataChallenge(resources: Record<ResourceName, ProtectedResource>) {
  // Run by the error envelope once the answer is rendered (app.ts): not a middleware of its own,
  // which cost a dispatch and an async function on every request.
  return function addResourceMetadata(ctx: Context): void {
    if (ctx.status !== 401 && ctx.status !== 403) return;
    const challenge = ctx.response.get('WWW-Authenticate');
    if (!/^Bearer\b/i.test(challenge) || challenge.includes('resource_metadata=')) return;
    const url = (ctx.path === MCP_PATH ? resources.mcp : resources.api).metadataUrl;
    const parameter = `resource_metadata="${url}"`;
    ctx.set(
      'WWW-Authenticate',
      challenge.trim() === 'Bearer' ? `Bearer ${parameter}` : `${challenge}, ${parameter}`,
    );
  };
}
