import {
  type ProtectedResource,
  protectedResources,
  type ResourceName,
  resourceNamed,
} from '@sched/policy/protected-resources';
import { LEGACY_SCOPES, SCOPES } from '@sched/policy/scopes';
import { errors } from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import { NO_SCOPE_MARKER } from './scopes.ts';

type ResourceIndicators = NonNullable<NonNullable<Configuration['features']>['resourceIndicators']>;

/** What a token for either resource may carry: the API scopes (not the OIDC ones: those are for userinfo). */
const RESOURCE_SCOPE_LIST: readonly string[] = [...SCOPES, ...LEGACY_SCOPES, NO_SCOPE_MARKER];
const RESOURCE_SCOPES = RESOURCE_SCOPE_LIST.join(' ');
const RESOURCE_SCOPE_SET: ReadonlySet<string> = new Set(RESOURCE_SCOPE_LIST);

/** Whether a token for a resource may carry `scope` (the resource server's scopes above). */
export const isResourceScope = (scope: string): boolean => RESOURCE_SCOPE_SET.has(scope);

/**
 * RFC 8707 through oidc-provider's own feature (docs/mcp.md "Audience"): `resource` may name the
 * API (`{BASE_URL}`) or the MCP server (`{BASE_URL}/mcp`), on authorization and token requests; any
 * other value is `invalid_target`. The token records the resource as its audience (`aud` in the
 * opaque token's record, which the API checks). A request without `resource` gets a token without
 * audience, as before, usable at /v2 only. A refresh keeps the authorization's resource
 * (`useGrantedResource`).
 */
export function resourceIndicators(baseUrl: string, accessTokenTtl: number): ResourceIndicators {
  const resources = protectedResources(baseUrl);
  return {
    enabled: true,
    // None unless asked for; several at once are left unresolved: one audience per token.
    defaultResource: async (_ctx, _client, oneOf) => oneOf,
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx, indicator) => {
      const resource = resourceNamed(resources, indicator);
      if (!resource) throw new errors.InvalidTarget("resource must be this service's API or MCP server");
      return {
        scope: RESOURCE_SCOPES,
        audience: resource.identifier,
        accessTokenFormat: 'opaque',
        accessTokenTTL: accessTokenTtl,
      };
    },
  };
}

/** The `resource` values of a request's parameters (absent, one, or several). */
export function requestedResources(params: Record<string, unknown> | undefined): string[] {
  const value = params?.['resource'];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The protected resource a request names, when it names exactly one of ours. */
export function requestedResource(
  resources: Record<ResourceName, ProtectedResource>,
  params: Record<string, unknown> | undefined,
): ProtectedResource | null {
  const named = requestedResources(params);
  return named.length === 1 ? resourceNamed(resources, named[0]!) : null;
}
