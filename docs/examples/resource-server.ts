// A resource server of your own that accepts this server's access tokens by asking the
// introspection endpoint (RFC 7662) about each one. It authenticates as a resource server, which
// a service administrator registers once; it may then introspect any client's tokens.
import * as oauth from 'oauth4webapi';

export interface ResourceServerCredentials {
  /** `rs_...`, used as client_id. */
  id: string;
  secret: string;
}

/** Registration, by a service administrator (their API key). The secret is in this answer only. */
export async function registerResourceServer(
  apiBase: string,
  adminApiKey: string,
  name: string,
): Promise<ResourceServerCredentials> {
  const response = await fetch(new URL('/v2/admin/resource-servers', apiBase), {
    method: 'POST',
    headers: { authorization: `Bearer ${adminApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, description: 'checks access tokens by introspection' }),
  });
  const body = await response.json();
  if (response.status !== 201)
    throw new Error(`not registered (${response.status}): ${JSON.stringify(body)}`);
  return { id: body.data.id, secret: body.data.secret };
}

/** What the introspection endpoint says about a token. */
export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  /** The user id, as a string. */
  sub?: string;
  exp?: number;
  iat?: number;
  token_type?: string;
}

/** With oauth4webapi: discovery finds introspection_endpoint; HTTP Basic with the id and secret. */
export async function introspectWithOauth4webapi(
  issuer: string,
  credentials: ResourceServerCredentials,
  token: string,
): Promise<Introspection> {
  const url = new URL(issuer);
  const options = url.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  // In a real server, discover once at start-up and keep `as`.
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { ...options, algorithm: 'oauth2' }),
  );
  const client: oauth.Client = { client_id: credentials.id };
  const response = await oauth.introspectionRequest(
    as,
    client,
    oauth.ClientSecretBasic(credentials.secret),
    token,
    options,
  );
  return (await oauth.processIntrospectionResponse(as, client, response)) as Introspection;
}

/** The same with plain fetch: a form POST with HTTP Basic. */
export async function introspectWithFetch(
  issuer: string,
  credentials: ResourceServerCredentials,
  token: string,
): Promise<Introspection> {
  // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
  const basic = btoa(`${encodeURIComponent(credentials.id)}:${encodeURIComponent(credentials.secret)}`);
  const response = await fetch(new URL('/v2/auth/oauth2/introspect', issuer), {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
  });
  if (response.status !== 200)
    throw new Error(`introspection failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Introspection;
}

export type Verdict =
  | { ok: true; userId: number; clientId: string; scopes: string[] }
  | { ok: false; status: 401 | 403; wwwAuthenticate: string };

/** Decides a request's `Authorization` header for an endpoint that needs `requiredScope`. */
export async function checkBearer(
  introspect: (token: string) => Promise<Introspection>,
  authorization: string | undefined,
  requiredScope: string,
): Promise<Verdict> {
  const token = /^Bearer ([\x21-\x7e]+)$/i.exec(authorization ?? '')?.[1];
  if (!token) return { ok: false, status: 401, wwwAuthenticate: 'Bearer' };
  const answer = await introspect(token);
  // Inactive: unknown, expired, revoked, or a refresh token presented as a bearer token.
  if (!answer.active || answer.token_type !== 'bearer') {
    return { ok: false, status: 401, wwwAuthenticate: 'Bearer error="invalid_token"' };
  }
  const scopes = (answer.scope ?? '').split(' ').filter(Boolean);
  if (!scopes.includes(requiredScope)) {
    return {
      ok: false,
      status: 403,
      wwwAuthenticate: `Bearer error="insufficient_scope", scope="${requiredScope}"`,
    };
  }
  return { ok: true, userId: Number(answer.sub), clientId: answer.client_id!, scopes };
}
