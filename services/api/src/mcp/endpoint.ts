import { MCP_PATH } from '@sched/policy/protected-resources';
import type { Context, Next } from 'koa';
import type { AccessControl } from '../auth/access-control.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { UserCaller } from '../routing/caller.ts';
import type { AnyRoute } from '../routing/route.ts';
import { missingToolScopes, toolScopeError } from './scopes.ts';
import { type Tool, toolsOf } from './tools.ts';

/**
 * The MCP SDK (with Ajv and zod-to-json-schema under it, about 110 modules) loads on the first MCP
 * request rather than at start: a restart does not pay for it (docs/performance.md, Start-up).
 */
const importSdk = () =>
  Promise.all([
    import('./server.ts'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]);
let sdkLoading: ReturnType<typeof importSdk> | undefined;
const loadSdk = () => {
  sdkLoading ??= importSdk();
  return sdkLoading;
};

/** /mcp needs a user's OAuth token (of audience BASE_URL/mcp: `authenticate(..., 'mcp')`). */
const MCP_CREDENTIAL = { auth: 'user' } as const;

/**
 * POST /mcp: the MCP server (Streamable HTTP, stateless, JSON answers). Per request:
 * 1. authenticate: 401 with `WWW-Authenticate: Bearer resource_metadata=...` (app.ts) for no, bad
 *    or wrong-audience token, which starts an MCP client's OAuth discovery;
 * 2. tools/call messages whose tool needs a scope the token lacks: 403 insufficient_scope with
 *    `scope="<every scope needed>"`, before anything runs (the client authorizes again and retries);
 * 3. the SDK's transport and a server of this request answer the JSON-RPC messages.
 * GET (a server-sent event stream) and DELETE (sessions) have nothing to serve: 405.
 * The caller's token is never passed on: tools run the route handlers in this process.
 */
export function mcpEndpoint(routes: readonly AnyRoute[], control: AccessControl) {
  const tools = toolsOf(routes);
  // Not async: every other request passes through without a promise and an async frame of its own.
  return function mcpEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== MCP_PATH) return next();
    return answerMcp(ctx, tools, control);
  };
}

async function answerMcp(
  ctx: Context,
  tools: ReadonlyMap<string, Tool>,
  control: AccessControl,
): Promise<void> {
  const { caller } = await authenticate(ctx, MCP_CREDENTIAL, control, [], 'mcp');
  if (ctx.method !== 'POST') {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    return;
  }
  const user = caller as UserCaller;
  const body = (ctx.request as { body?: unknown }).body;
  const short = toolsCalled(body, tools).filter((tool) => missingToolScopes(tool, user).length > 0);
  if (short.length > 0) throw toolScopeError(short, user);

  const [{ mcpServer }, { WebStandardStreamableHTTPServerTransport }] = await loadSdk();
  const server = mcpServer(tools, control, user, ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    // The transport's Web-standard side, fed the body already parsed and only the headers it
    // reads: Koa keeps the response (envelope headers, logging), with no Node-to-Web adapter.
    const answer = await transport.handleRequest(
      new Request(`http://mcp.invalid${MCP_PATH}`, { method: 'POST', headers: transportHeaders(ctx) }),
      { parsedBody: body },
    );
    ctx.status = answer.status;
    answer.headers.forEach((value, name) => {
      ctx.set(name, value);
    });
    ctx.body = answer.body === null ? '' : await answer.text();
  } finally {
    await transport.close();
    await server.close();
  }
}

const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
];

function transportHeaders(ctx: Context): Headers {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.get(name);
    if (value !== '') headers.set(name, value);
  }
  return headers;
}

/** The known tools named by the tools/call messages of a JSON-RPC body (one message or a batch). */
function toolsCalled(body: unknown, tools: ReadonlyMap<string, Tool>): Tool[] {
  const messages = Array.isArray(body) ? body : [body];
  const called: Tool[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const tool = tools.get(params.name);
    if (tool) called.push(tool);
  }
  return called;
}
