import type { AccessRequirement } from '@sched/policy/access';
import type { Role } from '@sched/policy/roles';
import type { ScopeRequirement } from '@sched/policy/scopes';
import type { RateLimitName } from '@sched/kit/rate-limits';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { RouteCache } from '../cache/route-cache.ts';
import type { AccessContext, Caller, UserCaller } from './caller.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route authenticates:
 * - `public`: no credential needed; one may be sent (a valid API key or OAuth token becomes the
 *   caller; an invalid one is ignored, the endpoint needs none).
 * - `user`: an API key or an OAuth access token of a user.
 * - `api-key`: a user's API key only (credential management). OAuth tokens, legacy ones included,
 *   are refused with 403.
 * - `admin`: the API key of a service administrator (admin routes name no scope; OAuth tokens,
 *   legacy ones included, are refused with 403).
 * - `client-secret`: the deprecated managed-user family (`x-svc-secret-key` header, checked against
 *   the active secrets of the client named by the `:clientId` path parameter).
 */
export type Authentication = 'public' | 'user' | 'api-key' | 'admin' | 'client-secret';

/**
 * A route, declared once: method, path, inputs, credential, scope, role and PBAC permission side
 * by side. The mount reads the declaration to validate, authenticate and authorize before the
 * handler runs; the OpenAPI document is generated from the same declarations.
 */
export interface RouteDefinition<
  P = unknown,
  Q = unknown,
  B = unknown,
  A extends Authentication = Authentication,
  R = unknown,
> {
  method: HttpMethod;
  /** koa-router syntax under /v2, e.g. '/organizations/:orgId/teams/:teamId/memberships'. */
  path: string;
  summary: string;
  /** Longer text for the OpenAPI document (optional). */
  description?: string;
  tags: string[];
  auth: A;
  /**
   * Scope an OAuth access token needs (one, or alternatives of which any one suffices). Absent or
   * null: the endpoint is not reachable with OAuth tokens, legacy ones included. Ignored for API keys.
   */
  scope?: ScopeRequirement;
  /**
   * Organization / team endpoints: minimum membership role and PBAC permission. The path must
   * name the target as `:orgId` (level 'organization') or `:teamId` (level 'team', optionally
   * under `/organizations/:orgId`). The mount answers 404 for an unknown organization or team (or a
   * team of another organization) and 403 when `decideAccess` refuses, before the handler runs.
   */
  access?: AccessRequirement;
  /**
   * A route on one membership that a member may also use on their own (DELETE: leaving). The mount
   * admits callers with this role; the handler asks for `access` when the membership is someone
   * else's. The document shows `access` as the minimum role, and this as the exception.
   */
  ownMembershipRole?: Role;
  /**
   * Requests allowed per caller (user, client on client-secret routes, IP address when anonymous)
   * and window; over it, 429 with Retry-After. `name` keys the counter, `what` ends the message
   * ("Too many <what>. Try again in ...").
   */
  rateLimit?: RouteRateLimit;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** What success looks like: the OpenAPI document shows it and the mount checks it outside production. */
  response: RouteResponse<R>;
  deprecated?: boolean;
  /**
   * Also served as this MCP tool at /mcp (src/mcp/): the tool's input is the route's params, query
   * and body fields in one object, validated by the same schemas; the same scope (enforced on every
   * OAuth token there, public routes included), role and permission apply.
   */
  mcp?: McpTool;
  /**
   * Extra invalidation versions the handler relies on (for a per-app cache of its own), read in the
   * same token-store round trip as the credential. Gets the raw path parameters and the route cache.
   */
  versionKeys?: (params: Record<string, string | undefined>, cache: RouteCache) => readonly string[];
  /** May answer synchronously (a cache hit) or with a promise. */
  handler: (
    input: HandlerInput<P, Q, B, A>,
  ) => HandlerResult<NoInfer<R>> | Promise<HandlerResult<NoInfer<R>>>;
}

export interface McpTool {
  /** snake_case tool name, e.g. `get_me`. */
  name: string;
  /** What the model reads (default: the route's summary). */
  description?: string;
}

/** Error statuses a route may declare beyond the ones the document gives every operation. */
export type DeclaredErrorStatus = 409 | 429;

export interface RouteResponse<R> {
  status: number;
  description: string;
  /**
   * The envelope's `data`: a schema named with `named()` (or an array of one), so the document can
   * refer to it. Absent only for 204.
   */
  schema?: z.ZodType<R>;
  /** The envelope's `pagination` member (cursor-paged lists), beside `data`; named too. */
  pagination?: z.ZodType;
  /** Name of the success envelope's schema when the v2 API names one (else `<Data>Response`). */
  name?: string;
  /** When the route answers them, the other error statuses it can give, with what they mean. */
  errors?: Readonly<Partial<Record<DeclaredErrorStatus, string>>>;
}

/** A route's rate limit: which one of `@sched/kit/rate-limits` (its figures come from the config). */
export interface RouteRateLimit {
  name: RateLimitName;
  /** Ends the 429 message: "Too many <what>. Try again in ...". */
  what: string;
}

export interface HandlerInput<P, Q, B, A extends Authentication> {
  params: P;
  query: Q;
  body: B;
  caller: A extends 'user' | 'admin'
    ? UserCaller
    : A extends 'api-key'
      ? Extract<Caller, { kind: 'api-key' }>
      : A extends 'client-secret'
        ? Extract<Caller, { kind: 'client-secret' }>
        : Caller | undefined;
  /**
   * Routes that declare `access`: the organization, team and the caller's memberships the decision
   * was made on (for rules that compare roles), and the decision. Undefined for other routes.
   */
  access: AccessContext | undefined;
  /** Invalidation versions read with the credential: the target's (`org:`, `team:`) and `versionKeys`. */
  versions: ReadonlyMap<string, number>;
  /** Per-app caches (one set per API app, like one per process). */
  cache: RouteCache;
  deps: Runtime;
  /** For the rare handler that needs headers or the raw request; prefer the validated inputs. */
  ctx: Context;
}

export interface HandlerResult<D = unknown> {
  /** Default 200; 204 sends no body. */
  status?: number;
  /** Wrapped as {"status": "success", "data": ...}; typed by the declared response schema. */
  data?: D;
  /** Sent beside `data` as `pagination` (cursor-paged lists; declared in `response.pagination`). */
  pagination?: unknown;
  headers?: Record<string, string>;
}

/** Identity function that lets TypeScript infer params, query and body types from the schemas. */
export function defineRoute<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  A extends Authentication = Authentication,
  R = unknown,
>(route: RouteDefinition<P, Q, B, A, R>): RouteDefinition<P, Q, B, A, R> {
  return route;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of routes of any input types
export type AnyRoute = RouteDefinition<any, any, any, any, any>;
