import type { ScopeRequirement } from '@sched/policy/scopes';
import { z } from 'zod';
import { planTarget, type TargetPlan } from '../auth/target.ts';
import type { RawInputs } from '../pipeline/execute.ts';
import type { AnyRoute } from '../routing/route.ts';

type JsonSchema = Record<string, unknown>;
type Part = 'params' | 'query' | 'body';
const PARTS: readonly Part[] = ['params', 'query', 'body'];

/** One MCP tool: a route declaration seen through MCP (the declaration is the only source). */
export interface Tool {
  name: string;
  description: string;
  route: AnyRoute;
  /** The route's scope; over MCP it is checked on every token (also for public routes, and legacy clients). */
  scope: ScopeRequirement;
  /** The organization / team the route guards, as in pipeline/mount.ts. */
  plan: TargetPlan | null;
  /** tools/list's input schema: the fields of params, query and body in one object. */
  inputSchema: JsonSchema & { type: 'object' };
  /** Which part of the request each input field belongs to. */
  fieldParts: ReadonlyMap<string, Part>;
}

/** A digit-only string in a path or query string: a model may send it as a number too. */
const DIGITS = /^\^(\[1-9\])?\\d(\{[\d,]+\})?\$$/;

function partSchema(route: AnyRoute, part: Part): JsonSchema | null {
  const schema = route[part];
  if (!schema) return null;
  // A registry of its own: named schemas are inlined, not referred to by id.
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    metadata: z.registry(),
  } as Parameters<typeof z.toJSONSchema>[1]) as JsonSchema;
  if (json.type !== 'object')
    throw new Error(`${route.method} ${route.path}: ${part} must be an object to serve as an MCP tool`);
  return json;
}

function widenDigits(property: JsonSchema): JsonSchema {
  const pattern = property.pattern;
  if (property.type !== 'string' || typeof pattern !== 'string' || !DIGITS.test(pattern)) return property;
  return { ...property, type: ['integer', 'string'] };
}

/** Builds a tool from a declaration with `mcp`; a route MCP cannot serve is a start-up error. */
export function toolOf(route: AnyRoute): Tool {
  const mcp = route.mcp!;
  if (route.auth !== 'user' && route.auth !== 'public') {
    throw new Error(`${mcp.name}: only 'user' and 'public' routes can be MCP tools`);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const fieldParts = new Map<string, Part>();
  for (const part of PARTS) {
    const json = partSchema(route, part);
    if (!json) continue;
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    for (const [field, schema] of Object.entries(props)) {
      if (fieldParts.has(field))
        throw new Error(`${mcp.name}: field ${field} is in two parts of the request`);
      fieldParts.set(field, part);
      properties[field] = part === 'body' ? schema : widenDigits(schema);
    }
    required.push(...((json.required ?? []) as string[]));
  }
  return {
    name: mcp.name,
    description: mcp.description ?? route.summary,
    route,
    scope: route.scope,
    plan: planTarget(route),
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    fieldParts,
  };
}

/** Every declared tool by name; two routes claiming one name is a start-up error. */
export function toolsOf(routes: readonly AnyRoute[]): ReadonlyMap<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const route of routes) {
    if (!route.mcp) continue;
    if (tools.has(route.mcp.name)) throw new Error(`MCP tool ${route.mcp.name} is declared twice`);
    tools.set(route.mcp.name, toolOf(route));
  }
  return tools;
}

/**
 * A tool call's arguments split back into the route's parts. Path and query values are strings
 * on the wire, so numbers and booleans become strings there; the route's schemas then validate
 * every part as for /v2 (an unknown field fails the body's strict schema or the empty-part rule).
 */
export function rawInputsOf(tool: Tool, args: Record<string, unknown>): RawInputs {
  const params: Record<string, string | undefined> = {};
  const query: Record<string, unknown> = {};
  let body: Record<string, unknown> | undefined;
  const unknown: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(args)) {
    const part = tool.fieldParts.get(field);
    if (part === 'body' || (part === undefined && tool.route.body)) {
      body ??= {};
      body[field] = value;
    } else if (part === 'params') params[field] = textOf(value);
    else if (part === 'query') query[field] = textOf(value);
    else unknown[field] = value;
  }
  // Fields no part declares: given to the query, whose schema or empty-part rule names them.
  for (const [field, value] of Object.entries(unknown)) query[field] = value;
  return { params, query, body: body ?? (tool.route.body ? {} : undefined) };
}

const textOf = (value: unknown): string =>
  typeof value === 'number' || typeof value === 'boolean' ? String(value) : (value as string);
