// The two protected resources, the API and the MCP server (RFC 8707 audiences, RFC 9728 metadata).

import type { Scope } from './scopes.ts';

export type ResourceName = 'api' | 'mcp';

/** Where the MCP server answers, below BASE_URL (its resource identifier is `{BASE_URL}/mcp`). */
export const MCP_PATH = '/mcp';

export interface ProtectedResource {
  name: ResourceName;
  /** The resource identifier: the token audience and the metadata's `resource`. */
  identifier: string;
  /** Path of its protected resource metadata (RFC 9728 section 3: well-known before the resource's path). */
  metadataPath: string;
  /** Absolute URL of that metadata (the `resource_metadata` of every 401). */
  metadataUrl: string;
  /**
   * `scopes_supported`: read scopes only (writes come by step-up). Also what an authorization
   * request for this resource without `scope` asks for.
   */
  scopes: readonly Scope[];
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Read scopes an MCP client starts with: the tools' individual read scopes (no team ones: a user without a team could not grant them). */
const MCP_READ_SCOPES: readonly Scope[] = [
  'PROFILE_READ',
  'EVENT_TYPE_READ',
  'SCHEDULE_READ',
  'BOOKING_READ',
];
const API_READ_SCOPES: readonly Scope[] = [
  'PROFILE_READ',
  'EVENT_TYPE_READ',
  'SCHEDULE_READ',
  'BOOKING_READ',
  'APPS_READ',
];

/** `https://host` and `https://host/` name one resource; other trailing slashes are kept. */
export function canonicalResource(value: string): string {
  return value.replace(/\/+$/, '');
}

function resource(name: ResourceName, identifier: string, scopes: readonly Scope[]): ProtectedResource {
  const url = new URL(identifier);
  const path = url.pathname === '/' ? '' : url.pathname;
  const metadataPath = `${WELL_KNOWN}${path}`;
  return { name, identifier, metadataPath, metadataUrl: `${url.origin}${metadataPath}`, scopes };
}

/** The resource API (`{BASE_URL}`, for /v2) and the MCP server (`{BASE_URL}/mcp`). */
export function protectedResources(baseUrl: string): Record<ResourceName, ProtectedResource> {
  const base = canonicalResource(baseUrl);
  return {
    api: resource('api', base, API_READ_SCOPES),
    mcp: resource('mcp', `${base}${MCP_PATH}`, MCP_READ_SCOPES),
  };
}

/** Which of the two resources an indicator names (trailing slash ignored); null for anything else. */
export function resourceNamed(
  resources: Record<ResourceName, ProtectedResource>,
  indicator: string,
): ProtectedResource | null {
  const wanted = canonicalResource(indicator);
  if (wanted === resources.mcp.identifier) return resources.mcp;
  if (wanted === resources.api.identifier) return resources.api;
  return null;
}

/** The RFC 9728 document of one resource. */
export function protectedResourceMetadata(resource: ProtectedResource, issuer: string) {
  return {
    resource: resource.identifier,
    authorization_servers: [issuer],
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ['header'],
  };
}

const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`;

/**
 * A `WWW-Authenticate: Bearer` challenge naming the resource metadata (MCP authorization; RFC 9728
 * section 5.1), with the RFC 6750 error and, for insufficient_scope, every scope the call needs.
 */
export function bearerChallenge(
  metadataUrl: string,
  options: { error?: string; scopes?: readonly string[] } = {},
): string {
  const parts: string[] = [];
  if (options.error) parts.push(`error=${quoted(options.error)}`);
  if (options.scopes && options.scopes.length > 0) parts.push(`scope=${quoted(options.scopes.join(' '))}`);
  parts.push(`resource_metadata=${quoted(metadataUrl)}`);
  return `Bearer ${parts.join(', ')}`;
}
