import type { Config } from '@sched/kit/config';
import { RATE_LIMIT_DEFAULTS, type RateLimits } from '@sched/kit/rate-limits';
import { SCOPE_DESCRIPTIONS } from '@sched/policy/scope-descriptions';
import { z } from 'zod';
import type { AnyRoute } from '../routing/route.ts';
import { elementOf, exampleOf, nameOf } from './named.ts';

/**
 * The OpenAPI 3.1 document, generated from the route declarations (zod 4's toJSONSchema for
 * inputs and outputs; named schemas under components/schemas, each with its example). Every
 * operation shows how it authenticates and, in one place, its scope, minimum role and PBAC
 * permission: in the description and as x-scope / x-access extensions.
 */

type JsonSchema = Record<string, unknown>;

const COMPONENT = '#/components/schemas/';

/**
 * The document's named schemas (components/schemas), filled while the operations are built:
 * every schema named with `named()` lands here once and is referred to by `$ref`.
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /** A zod schema as JSON Schema whose named parts are references into components/schemas. */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    // zod puts named parts under $defs; the document keeps them under components/schemas.
    const {
      $schema: _ignored,
      $defs,
      ...rest
    } = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${COMPONENT}`)) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    for (const [name, definition] of Object.entries($defs ?? {})) this.add(name, definition);
    return rest;
  }

  /** Adds a named schema; one name must mean one shape (an input and an output that differ need two names). */
  add(name: string, schema: JsonSchema): JsonSchema {
    const known = this.schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(schema)) {
      throw new Error(`OpenAPI: two different schemas are named ${name}`);
    }
    this.schemas[name] = schema;
    return { $ref: `${COMPONENT}${name}` };
  }
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

/**
 * An operation that names no scope refuses every OAuth token with 403 insufficient_scope, a legacy
 * client's included (those skip scope checks, not this one): only API keys reach it.
 */
const NO_SCOPE_TEXT = 'none: not available to third-party OAuth tokens (legacy ones included)';

/** The exception for a member's own membership (leaving), when the route has one. */
const ownMembership = (route: AnyRoute): string =>
  route.ownMembershipRole === undefined
    ? ''
    : `; ${route.ownMembershipRole} on their own membership (leaving)`;

/** The lines the docs page and the document show for one route. */
export function accessSummary(route: AnyRoute): {
  auth: string;
  scope: string;
  role: string;
  permission: string;
} {
  const scopes = scopesOf(route);
  return {
    auth: AUTH_TEXT[route.auth as AnyRoute['auth']] ?? '',
    scope:
      route.auth === 'public' ? 'none (public)' : scopes.length > 0 ? scopes.join(' or ') : NO_SCOPE_TEXT,
    role: route.access
      ? route.access.level === 'team'
        ? `team ${route.access.minimumRole} (organization ADMIN or OWNER also passes)${ownMembership(route)}`
        : `organization ${route.access.minimumRole}${ownMembership(route)}`
      : route.auth === 'admin'
        ? 'service administrator'
        : 'none',
    permission: route.access?.permission
      ? `${route.access.permission} (when the organization has PBAC on, holding it grants access and skips the role check)`
      : 'none',
  };
}

/** The error responses of components/responses; 409 only where a route declares it (`response.errors`). */
const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Invalid input (`details` lists the failing fields)',
  '401': 'No, bad, expired or revoked credential (`WWW-Authenticate: Bearer`)',
  '403': 'Missing scope (`WWW-Authenticate: Bearer error="insufficient_scope"`), role, permission or rule',
  '404': 'Unknown id (also a team of another organization)',
  '409': 'Conflict with the current state',
  '413': 'Request body larger than 1 MiB',
  '415': 'Request body that is not JSON (or in a Content-Encoding other than gzip, deflate or br)',
  '503': 'A back end is unavailable for a moment (`Retry-After` says when to try again)',
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The statuses of the error envelope an operation can answer, with what each means for it. */
function errorStatuses(route: AnyRoute): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [code, text] of Object.entries(ERROR_RESPONSES)) {
    if (code === '401' && route.auth === 'public') continue;
    if (code === '409') continue;
    if ((code === '413' || code === '415') && !BODY_METHODS.has(route.method)) continue;
    out[code] = text;
  }
  for (const [code, text] of Object.entries(route.response.errors ?? {})) out[code] = text as string;
  return out;
}

const routeName = (route: AnyRoute) => `${route.method} ${route.path}`;

/**
 * The success envelope `{status: "success", data, pagination?}` as a named schema
 * (`<Data>Response`, `<Item>ListResponse`, `<Item>PageResponse`) with its example. `data` must
 * be a named schema or a list of one: the document never shows an untyped `data`.
 */
function successResponse(
  route: AnyRoute,
  components: SchemaComponents,
): { schema: JsonSchema; example: unknown } {
  const { schema, pagination } = route.response;
  if (!schema)
    throw new Error(
      `OpenAPI: ${routeName(route)} answers ${route.response.status} without a response schema`,
    );
  const item = elementOf(schema);
  const dataName = nameOf(schema) ?? (item ? nameOf(item) : undefined);
  if (!dataName)
    throw new Error(`OpenAPI: the response schema of ${routeName(route)} needs a name (named())`);
  const data = components.convert(schema, 'output');
  const dataExample = nameOf(schema) ? exampleOf(schema) : [exampleOf(item!)];
  let pageSchema: JsonSchema | undefined;
  if (pagination) {
    if (!nameOf(pagination))
      throw new Error(`OpenAPI: the pagination schema of ${routeName(route)} needs a name`);
    pageSchema = components.convert(pagination, 'output');
  }
  const name =
    route.response.name ??
    (nameOf(schema)
      ? `${dataName}Response`
      : pagination
        ? `${dataName}PageResponse`
        : `${dataName}ListResponse`);
  const ref = components.add(name, {
    type: 'object',
    properties: {
      status: { type: 'string', const: 'success' },
      data,
      ...(pageSchema ? { pagination: pageSchema } : {}),
    },
    required: pageSchema ? ['status', 'data', 'pagination'] : ['status', 'data'],
    additionalProperties: false,
  });
  return {
    schema: ref,
    example: {
      status: 'success',
      data: dataExample,
      ...(pagination ? { pagination: exampleOf(pagination) } : {}),
    },
  };
}

/** The request body as a named schema with its example. */
function requestBody(route: AnyRoute, components: SchemaComponents): JsonSchema {
  const body = route.body!;
  if (!nameOf(body))
    throw new Error(`OpenAPI: the request body of ${routeName(route)} needs a name (named())`);
  return {
    // Optional when the route also takes its input another way (DELETE role permissions).
    required: !body.safeParse(undefined).success,
    content: {
      'application/json': { schema: components.convert(body, 'input'), example: exampleOf(body) },
    },
  };
}

const RATE_LIMITED = 'Rate limit of the endpoint reached (`Retry-After` says when to try again)';

function parameters(route: AnyRoute, components: SchemaComponents): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [part, where] of [
    ['params', 'path'],
    ['query', 'query'],
  ] as const) {
    const schema = route[part];
    if (!schema) continue;
    const json = components.convert(schema, 'input');
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

function operation(route: AnyRoute, limits: RateLimits, components: SchemaComponents): JsonSchema {
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
  const status = String(route.response.status);
  const success = status === '204' ? undefined : successResponse(route, components);
  const responses: Record<string, unknown> = {
    [status]: {
      description: route.response.description,
      ...(success ? { content: { 'application/json': success } } : {}),
    },
  };
  for (const [code, text] of Object.entries(errorStatuses(route))) {
    responses[code] = { $ref: `#/components/responses/E${code}`, description: text };
  }
  if (limit) {
    responses['429'] = {
      $ref: '#/components/responses/E429',
      description: `More than ${limit.max} in ${limit.windowSeconds} s per caller (\`Retry-After\`). A request counts once it is authenticated and its input is valid; every counted answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` (401 and 400 answers neither count nor carry them)`,
    };
  }
  return {
    operationId: `${route.method.toLowerCase()}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    description,
    tags: route.tags,
    ...(route.deprecated ? { deprecated: true } : {}),
    parameters: parameters(route, components),
    ...(route.body ? { requestBody: requestBody(route, components) } : {}),
    responses,
    security,
    'x-auth': route.auth,
    'x-scope': scopes.length > 0 ? scopes : null,
    'x-access': route.access
      ? {
          ...route.access,
          ...(route.ownMembershipRole !== undefined && { ownMembershipRole: route.ownMembershipRole }),
        }
      : null,
    'x-rate-limit': limit
      ? { name: route.rateLimit!.name, max: limit.max, windowSeconds: limit.windowSeconds }
      : null,
  };
}

/**
 * The OAuth endpoints are the authorization server's: its issuer is APP_URL, so they are advertised
 * there, as its discovery documents do (BASE_URL is the resource API's origin; the two may differ).
 */
function oauthFlowUrls(appUrl: string) {
  const token = `${appUrl}/v2/auth/oauth2/token`;
  return { authorizationUrl: `${appUrl}/auth/oauth2/authorize`, tokenUrl: token, refreshUrl: token };
}

export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  config: Pick<Config, 'appUrl' | 'baseUrl'> & { rateLimits?: RateLimits },
) {
  const limits = config.rateLimits ?? RATE_LIMIT_DEFAULTS;
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, limits, components);
  }
  const errorSchema = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['error'] },
      timestamp: { type: 'string', format: 'date-time' },
      path: { type: 'string' },
      error: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: { description: 'for 400, the failing fields: [{field, message}]' },
        },
        required: ['code', 'message'],
        additionalProperties: false,
      },
    },
    required: ['status', 'timestamp', 'path', 'error'],
    additionalProperties: false,
    examples: [
      {
        status: 'error',
        timestamp: '2026-11-26T10:00:00.000Z',
        path: '/v2/teams/12',
        error: { code: 'NotFound', message: 'Team not found' },
      },
    ],
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Scheduling API',
      version: '1.0.0',
      description:
        'Resource API v2. Authenticate with an API key (`svc_...`) or an OAuth access token. OAuth tokens ' +
        'need the scope an operation names (ORG_ scopes also grant the matching TEAM_ scope; tokens of legacy ' +
        'clients are not scope-checked); operations that name no scope are not available to third-party OAuth ' +
        'tokens, legacy ones included (403 insufficient_scope). ' +
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
            authorizationCode: { ...oauthFlowUrls(config.appUrl), scopes: SCOPE_DESCRIPTIONS },
          },
        },
        clientSecret: { type: 'apiKey', in: 'header', name: 'x-svc-secret-key' },
      },
      schemas: { Error: errorSchema, ...components.schemas },
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
