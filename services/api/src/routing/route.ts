import type { AccessRequirement } from '@sched/policy/access';
import type { ScopeRequirement } from '@sched/policy/scopes';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Caller, UserCaller } from './caller.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route authenticates:
 * - `public`: no credential needed; one may be sent (an OAuth token is accepted, not required).
 * - `user`: an API key or an OAuth access token of a user.
 * - `admin`: a user credential of a service administrator (API key only: admin routes name no scope).
 * - `client-secret`: the deprecated managed-user family (`x-svc-secret-key`).
 */
export type Authentication = 'public' | 'user' | 'admin' | 'client-secret';

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
> {
  method: HttpMethod;
  /** koa-router syntax under /v2, e.g. '/organizations/:orgId/teams/:teamId/memberships'. */
  path: string;
  summary: string;
  tags: string[];
  auth: A;
  /**
   * Scope an OAuth access token needs (one, or alternatives of which any one suffices). Absent or
   * null: the endpoint is not reachable with non-legacy OAuth tokens. Ignored for API keys.
   */
  scope?: ScopeRequirement;
  /** Organization / team endpoints: minimum membership role and PBAC permission. */
  access?: AccessRequirement;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** For the OpenAPI document. */
  response?: { status: number; description: string; schema?: z.ZodType };
  deprecated?: boolean;
  handler: (input: HandlerInput<P, Q, B, A>) => Promise<HandlerResult>;
}

export interface HandlerInput<P, Q, B, A extends Authentication> {
  params: P;
  query: Q;
  body: B;
  caller: A extends 'user' | 'admin'
    ? UserCaller
    : A extends 'client-secret'
      ? Extract<Caller, { kind: 'client-secret' }>
      : Caller | undefined;
  deps: Runtime;
  /** For the rare handler that needs headers or the raw request; prefer the validated inputs. */
  ctx: Context;
}

export interface HandlerResult {
  /** Default 200; 204 sends no body. */
  status?: number;
  /** Wrapped as {"status": "success", "data": ...}. */
  data?: unknown;
  headers?: Record<string, string>;
}

/** Identity function that lets TypeScript infer params, query and body types from the schemas. */
export function defineRoute<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  A extends Authentication = Authentication,
>(route: RouteDefinition<P, Q, B, A>): RouteDefinition<P, Q, B, A> {
  return route;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of routes of any input types
export type AnyRoute = RouteDefinition<any, any, any, any>;
