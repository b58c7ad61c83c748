import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type AppError, toAppError } from '@sched/kit/errors';
import { APP_VERSION } from '@sched/kit/version';
import type { Context } from 'koa';
import type { AccessControl } from '../auth/access-control.ts';
import { resolveTarget } from '../auth/target.ts';
import { dataErrorToAppError } from '../errors/data-errors.ts';
import { executeRoute } from '../pipeline/execute.ts';
import type { UserCaller } from '../routing/caller.ts';
import { missingToolScopes, toolScopeError } from './scopes.ts';
import { rawInputsOf, type Tool } from './tools.ts';

const NO_VERSIONS: ReadonlyMap<string, number> = new Map();

/**
 * One JSON Schema validator for every request's server: the SDK would build an Ajv instance per
 * Server (it validates elicitation answers, which we never ask for), which profiled as the largest
 * part of the MCP layer's cost per call. It keeps no per-request state.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * The MCP server of one HTTP request (stateless: nothing outlives the request, so any API process
 * can answer any call). tools/list comes from the declarations; tools/call runs the declared
 * route's steps (pipeline/execute.ts) for the caller that /mcp authenticated. Errors a /v2 call
 * would answer with a 4xx become tool errors carrying the API's message and code.
 */
export function mcpServer(
  tools: ReadonlyMap<string, Tool>,
  control: AccessControl,
  caller: UserCaller,
  ctx: Context,
): Server {
  const server = new Server(
    { name: 'sched-oauth', version: APP_VERSION },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: SCHEMA_VALIDATOR },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: tool.route.method === 'GET' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    try {
      return await callTool(tool, request.params.arguments ?? {}, control, caller, ctx);
    } catch (error) {
      const known = dataErrorToAppError(error) ?? toAppError(error);
      if (!known) {
        ctx.state.log?.error({ err: error, tool: tool.name }, 'MCP tool failed');
        return toolError({ code: 'InternalError', message: 'Internal server error' });
      }
      return toolError(known);
    }
  });
  return server;
}

async function callTool(
  tool: Tool,
  args: Record<string, unknown>,
  control: AccessControl,
  caller: UserCaller,
  ctx: Context,
): Promise<CallToolResult> {
  // /mcp checks scopes before the request reaches here (a 403 the client can step up from); this
  // keeps the rule where the call runs too.
  if (missingToolScopes(tool, caller).length > 0) throw toolScopeError([tool], caller);
  const raw = rawInputsOf(tool, args);
  const pending = tool.plan ? resolveTarget(tool.plan, raw.params, control) : undefined;
  const target = pending instanceof Promise ? await pending : pending;
  const keys = [
    ...(target?.versionKeys ?? []),
    ...(tool.route.versionKeys?.(raw.params, control.routeCache) ?? []),
  ];
  const versions = keys.length === 0 ? NO_VERSIONS : await readVersions(control, keys);
  const result = await executeRoute(tool.route, control, { caller, target, versions }, raw, ctx);
  const structured: Record<string, unknown> =
    result.pagination === undefined
      ? { data: result.data ?? null }
      : { data: result.data ?? null, pagination: result.pagination };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

async function readVersions(control: AccessControl, keys: string[]): Promise<ReadonlyMap<string, number>> {
  const values = await control.deps.stores.tokenStore.readVersions(keys);
  return new Map(keys.map((key, i) => [key, values[i] ?? 0]));
}

function toolError(error: Pick<AppError, 'code' | 'message'> & { details?: unknown }): CallToolResult {
  const body = {
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
  return {
    isError: true,
    content: [{ type: 'text', text: error.message }],
    structuredContent: { error: body },
  };
}
