// The official SDK's client, version 2 (@modelcontextprotocol/client): its step-up re-authorizes
// with the union of the scopes (SEP-2350); the 1.x client refreshes instead and gives up when it
// holds a refresh token (typescript-sdk issue 2255). The server side is @modelcontextprotocol/sdk.
import {
  Client,
  type OAuthClientInformation,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';

/** The MCP protocol version the raw calls speak (one the SDK's server supports). */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

export interface McpAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC response (or the API's error envelope for 401/403/405). */
  // biome-ignore lint/suspicious/noExplicitAny: JSON of either shape
  body: any;
}

let nextId = 1;

/**
 * One JSON-RPC request to an MCP server over Streamable HTTP, without the SDK: for the status
 * codes and headers (401, 403 step-up) that the SDK's client turns into its own behaviour.
 */
export async function mcpRequest(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<McpAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MCP_PROTOCOL_VERSION,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
}

/** A tools/call by raw JSON-RPC: its result (a tool result, `isError` for tool errors). */
export async function callToolRaw(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
) {
  return mcpRequest(url, 'tools/call', { name, arguments: args }, { token });
}

/**
 * The SDK's own client on Streamable HTTP, connected (initialize done): with a fixed bearer token,
 * or with an OAuth provider (the SDK's OAuth support discovers and authorizes by itself).
 */
export async function connectMcpClient(
  url: string,
  auth: { token: string } | { authProvider: OAuthClientProvider },
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport =
    'token' in auth
      ? new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${auth.token}` } },
        })
      : new StreamableHTTPClientTransport(new URL(url), { authProvider: auth.authProvider });
  const client = new Client({ name: 'sched-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** The `data` of a successful tool result (tools answer `{data}` as structured content). */
// biome-ignore lint/suspicious/noExplicitAny: tool results are JSON
export function toolData(result: any): any {
  if (result?.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result?.structuredContent?.data;
}

/**
 * The agent's side of the SDK's OAuth support, kept in memory: a public client (PKCE, no secret)
 * and a loopback redirect URI. The client is either registered beforehand (a `client_id`) or known
 * by its Client ID Metadata Document (`{ metadataUrl }`: the SDK then uses that URL as client_id
 * when the server's metadata says it supports documents). `redirectToAuthorization` only records
 * the URL: the test drives a browser there (`authorizations`).
 */
export class TestAgentAuth implements OAuthClientProvider {
  readonly authorizations: URL[] = [];
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  #information: OAuthClientInformation | undefined;
  readonly #redirectUri: string;
  readonly clientMetadataUrl: string | undefined;

  constructor(client: string | { metadataUrl: string }, redirectUri: string) {
    if (typeof client === 'string') this.#information = { client_id: client };
    else this.clientMetadataUrl = client.metadataUrl;
    this.#redirectUri = redirectUri;
  }

  get redirectUrl(): string {
    return this.#redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent',
      redirect_uris: [this.#redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformation | undefined {
    return this.#information;
  }

  saveClientInformation(information: OAuthClientInformation): void {
    this.#information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizations.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  // The authorization server the authorization began with, checked again on the callback leg.
  #discovery: unknown;

  saveDiscoveryState(state: unknown): void {
    this.#discovery = state;
  }

  discoveryState(): never {
    return this.#discovery as never;
  }
}
