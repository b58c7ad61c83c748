import type { Config } from '@sched/kit/config';
import { RATE_LIMIT_DEFAULTS, type RateLimits } from '@sched/kit/rate-limits';
import { SCOPE_DESCRIPTIONS } from '@sched/policy/scope-descriptions';
import { z } from 'zod';
import type { AnyRoute } from '../routing/route.ts';

/**
 * The OpenAPI 3.1 document, generated from the route declarations (zod 4's toJSONSchema for
 * inputs and outputs). Every operation shows how it authenticates and, in one place, its scope,
 * minimum role and PBAC permission: in the description and as x-scope / x-access extensions.
 */

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** `/teams/:teamId/memberships` -> `/teams/{teamId}/memberships`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

const scopesOf = (route: AnyRoute): string[] =>
  route.scope == null ? [] : typeof route.scope === 'string' ? [route.scope] : [...route.scope];

const AUTH_TEXT: Record<AnyRoute['auth'], string> = {
  public: 'None needed (an API key or OAuth access token may be sent and is accepted).',
  user: 'API key or OAuth access token (`Authorization: Bearer ...`).',
  'api-key': 'API key only (`Authorization: Bearer svc_...`); OAuth access tokens are refused (403).',
  admin: "A service administrator's API key; anyone else gets 403.",
  'client-secret': 'Header `x-svc-secret-key`: an active secret of the OAuth client in the path.',
};

/** The lines the docs page and the document show for one route. */
export function accessSummary(route: AnyRoute): {
  auth: string;
  scope: string;
  role: string;
  permission: string;
} {
  const scopes = scopesOf(route);
  const oauth = route.auth === 'user' || route.auth === 'public';
  return {
    auth: AUTH_TEXT[route.auth as AnyRoute['auth']] ?? '',
    scope:
      route.auth === 'public'
        ? 'none (public)'
        : scopes.length > 0
          ? scopes.join(' or ')
          : oauth
            ? 'none: not available to OAuth tokens of non-legacy clients'
            : 'none: not available to OAuth tokens',
    role: route.access
      ? route.access.level === 'team'
        ? `team ${route.access.minimumRole} (organization ADMIN or OWNER also passes)`
        : `organization ${route.access.minimumRole}`
      : route.auth === 'admin'
        ? 'service administrator'
        : 'none',
    permission: route.access?.permission
      ? `${route.access.permission} (when the organization has PBAC on, holding it grants access and skips the role check)`
      : 'none',
  };
}

const envelope = (data: JsonSchema, pagination?: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { status: { type: 'string', enum: ['success'] }, data, ...(pagination ? { pagination } : {}) },
  required: pagination ? ['status', 'data', 'pagination'] : ['status', 'data'],
});

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Invalid input (`details` lists the failing fields)',
  '401': 'No, bad, expired or revoked credential (`WWW-Authenticate: Bearer`)',
  '403': 'Missing scope (`WWW-Authenticate: Bearer error="insufficient_scope"`), role, permission or rule',
  '404': 'Unknown id (also a team of another organization)',
};

const RATE_LIMITED = 'Rate limit of the endpoint reached (`Retry-After` says when to try again)';

function parameters(route: AnyRoute): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [part, where] of [
    ['params', 'path'],
    ['query', 'query'],
  ] as const) {
    const schema = route[part];
    if (!schema) continue;
    const json = jsonSchema(schema, 'input');
    const properties = (json['properties'] ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json['required'] ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function operation(route: AnyRoute, limits: RateLimits): JsonSchema {
  const limit = route.rateLimit ? limits[route.rateLimit.name] : null;
  const access = accessSummary(route);
  const scopes = scopesOf(route);
  const security =
    route.auth === 'public'
      ? [{}, { bearer: [] }]
      : route.auth === 'client-secret'
        ? [{ clientSecret: [] }]
        : route.auth === 'user' && scopes.length > 0
          ? [{ bearer: [] }, ...scopes.map((scope) => ({ oauth2: [scope] }))]
          : [{ bearer: [] }];
  const description = [
    route.description,
    `**Authentication:** ${access.auth}`,
    `**OAuth scope:** ${access.scope}`,
    `**Minimum role:** ${access.role}`,
    `**PBAC permission:** ${access.permission}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const status = String(route.response?.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]: {
      description: route.response?.description ?? 'Success',
      ...(status === '204'
        ? {}
        : {
            content: {
              'application/json': {
                schema: envelope(
                  route.response?.schema ? jsonSchema(route.response.schema, 'output') : {},
                  route.response?.pagination ? jsonSchema(route.response.pagination, 'output') : undefined,
                ),
              },
            },
          }),
    },
  };
  for (const [code, text] of Object.entries(ERROR_RESPONSES)) {
    if (code === '401' && route.auth === 'public') continue;
    responses[code] = { $ref: `#/components/responses/E${code}`, description: text };
  }
  if (limit) {
    responses['429'] = {
      $ref: '#/components/responses/E429',
      description: `More than ${limit.max} in ${limit.windowSeconds} s per caller (\`Retry-After\`; every answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\`)`,
    };
  }
  return {
    operationId: `${route.method.toLowerCase()}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    description,
    tags: route.tags,
    ...(route.deprecated ? { deprecated: true } : {}),
    parameters: parameters(route),
    ...(route.body
      ? {
          requestBody: {
            // Optional when the route also takes its input another way (DELETE role permissions).
            required: !route.body.safeParse(undefined).success,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
          },
        }
      : {}),
    responses,
    security,
    'x-auth': route.auth,
    'x-scope': scopes.length > 0 ? scopes : null,
    'x-access': route.access ?? null,
    'x-rate-limit': limit
      ? { name: route.rateLimit!.name, max: limit.max, windowSeconds: limit.windowSeconds }
      : null,
  };
}

export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  config: Pick<Config, 'appUrl' | 'baseUrl'> & { rateLimits?: RateLimits },
) {
  const limits = config.rateLimits ?? RATE_LIMIT_DEFAULTS;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, limits);
  }
  const errorSchema = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['error'] },
      timestamp: { type: 'string', format: 'date-time' },
      path: { type: 'string' },
      error: {
        type: 'object',
        properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
        required: ['code', 'message'],
      },
    },
    required: ['status', 'timestamp', 'path', 'error'],
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Scheduling API',
      version: '1.0.0',
      description:
        'Resource API v2. Authenticate with an API key (`svc_...`) or an OAuth access token. OAuth tokens ' +
        'need the scope an operation names (ORG_ scopes also grant the matching TEAM_ scope; tokens of legacy ' +
        'clients are not scope-checked); operations that name no scope refuse OAuth tokens of non-legacy clients. ' +
        'Organization and team operations also need a membership role, or, with PBAC on, a permission.',
    },
    servers: [{ url: `${config.baseUrl}/v2` }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (svc_...) or an OAuth access token',
        },
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${config.appUrl}/auth/oauth2/authorize`,
              tokenUrl: `${config.baseUrl}/v2/auth/oauth2/token`,
              refreshUrl: `${config.baseUrl}/v2/auth/oauth2/token`,
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
        clientSecret: { type: 'apiKey', in: 'header', name: 'x-svc-secret-key' },
      },
      schemas: { Error: errorSchema },
      responses: Object.fromEntries(
        Object.entries({ ...ERROR_RESPONSES, '429': RATE_LIMITED }).map(([code, text]) => [
          `E${code}`,
          {
            description: text,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}
