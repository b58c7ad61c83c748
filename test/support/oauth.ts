import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Helpers to drive the authorization-code flow over HTTP (a small cookie-keeping browser),
 * reusable by every suite that needs a real access token. Users and clients: ./factories.ts.
 */

import type { TestClient } from './factories.ts';

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A cookie jar with path matching and expiry, enough for the authorization server's cookies. */
class CookieJar {
  readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = val;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
      }
      const key = `${name}|${path}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter(
        (c) =>
          url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

export interface PageResult {
  kind: 'page';
  url: URL;
  status: number;
  html: string;
}
export interface RedirectResult {
  kind: 'redirect';
  /** Where the server sent the browser outside its own origin (the client's redirect_uri). */
  url: URL;
  status: number;
}

/**
 * A minimal browser for the authorization server: keeps cookies, follows redirects inside the
 * server's origin, stops at a page or at a redirect leaving it, and submits the pages' forms.
 */
export class FlowBrowser {
  readonly origin: string;
  readonly jar = new CookieJar();

  constructor(serverUrl: string) {
    this.origin = new URL(serverUrl).origin;
  }

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url, this.origin);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(target);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    this.jar.store(response.headers.getSetCookie());
    return response;
  }

  /** GETs `url` and follows same-origin redirects. */
  async open(url: string | URL): Promise<PageResult | RedirectResult> {
    let target = new URL(url, this.origin);
    for (let hops = 0; hops < 10; hops++) {
      const response = await this.request(target);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.arrayBuffer();
        const next = new URL(location, target);
        if (next.origin !== this.origin) return { kind: 'redirect', url: next, status: response.status };
        target = next;
        continue;
      }
      return { kind: 'page', url: target, status: response.status, html: await response.text() };
    }
    throw new Error('too many redirects');
  }

  /** Submits the page's form whose action ends with `actionSuffix` (hidden inputs included). */
  async submit(
    page: PageResult,
    actionSuffix: string,
    fields: Record<string, string>,
  ): Promise<PageResult | RedirectResult> {
    const form = formOf(page.html, actionSuffix);
    if (!form) throw new Error(`no form ending in ${actionSuffix} on ${page.url.href}:\n${page.html}`);
    const body = new URLSearchParams({ ...form.hidden, ...fields });
    const response = await this.request(new URL(form.action, page.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, page.url);
      if (next.origin !== this.origin) return { kind: 'redirect', url: next, status: response.status };
      return this.open(next);
    }
    return { kind: 'page', url: page.url, status: response.status, html: await response.text() };
  }
}

const decodeEntities = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The action and hidden inputs of the form whose action ends with `actionSuffix`. */
export function formOf(
  html: string,
  actionSuffix: string,
): { action: string; hidden: Record<string, string> } | null {
  for (const match of html.matchAll(/<form\b[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const action = decodeEntities(match[1]!);
    if (!action.endsWith(actionSuffix)) continue;
    const hidden: Record<string, string> = {};
    for (const input of match[2]!.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
      if (name) hidden[decodeEntities(name)] = decodeEntities(value);
    }
    return { action, hidden };
  }
  return null;
}

export interface AuthorizeOptions {
  /** Credentials to sign in with when the sign-in page appears. */
  user?: { email: string; password: string };
  /** What to click on the consent page. */
  decision?: 'allow' | 'deny';
  /** Reuse a browser (and its session) across authorizations. */
  browser?: FlowBrowser;
}

export interface AuthorizeResult {
  /** The redirect to the client, or the page the flow stopped at (an error page). */
  outcome: PageResult | RedirectResult;
  browser: FlowBrowser;
  /** Whether the consent page was shown. */
  consentShown: boolean;
}

/** The authorization URL for `params` (client_id, redirect_uri, scope, state, code_challenge, ...). */
export const authorizeUrl = (serverUrl: string, params: Record<string, string>): URL => {
  const url = new URL('/auth/oauth2/authorize', serverUrl);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url;
};

/** Runs the browser part of the flow: authorize, sign in, consent; stops where the server lets go. */
export async function authorizeInBrowser(
  serverUrl: string,
  url: URL | string,
  options: AuthorizeOptions = {},
): Promise<AuthorizeResult> {
  const browser = options.browser ?? new FlowBrowser(serverUrl);
  let outcome = await browser.open(url);
  let consentShown = false;
  if (outcome.kind === 'page' && formOf(outcome.html, '/signin')) {
    if (!options.user) return { outcome, browser, consentShown };
    outcome = await browser.submit(outcome, '/signin', {
      email: options.user.email,
      password: options.user.password,
    });
  }
  if (outcome.kind === 'page' && formOf(outcome.html, '/consent')) {
    consentShown = true;
    outcome = await browser.submit(outcome, '/consent', { decision: options.decision ?? 'allow' });
  }
  return { outcome, browser, consentShown };
}

/** Runs the flow to the end and returns the authorization code (throws when there is none). */
export async function obtainCode(
  serverUrl: string,
  params: Record<string, string>,
  options: AuthorizeOptions = {},
): Promise<{ code: string; redirect: URL; browser: FlowBrowser }> {
  const { outcome, browser } = await authorizeInBrowser(serverUrl, authorizeUrl(serverUrl, params), options);
  if (outcome.kind !== 'redirect')
    throw new Error(`flow stopped at a page (${outcome.status}):\n${outcome.html}`);
  const code = outcome.url.searchParams.get('code');
  if (!code) throw new Error(`no code in ${outcome.url.href}`);
  return { code, redirect: outcome.url, browser };
}

export interface TokenResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** POSTs to the token endpoint (form by default, JSON with `json`, HTTP Basic with `basic`). */
export async function tokenRequest(
  serverUrl: string,
  params: Record<string, string>,
  options: { json?: boolean; basic?: { clientId: string; secret: string }; path?: string } = {},
): Promise<TokenResponse> {
  const headers: Record<string, string> = {
    'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
  };
  if (options.basic) {
    const encode = (value: string) => encodeURIComponent(value);
    headers.authorization = `Basic ${Buffer.from(`${encode(options.basic.clientId)}:${encode(options.basic.secret)}`).toString('base64')}`;
  }
  const response = await fetch(new URL(options.path ?? '/v2/auth/oauth2/token', serverUrl), {
    method: 'POST',
    headers,
    body: options.json ? JSON.stringify(params) : new URLSearchParams(params),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/** Client authentication parameters for a token request (body style). */
export function clientCredentials(client: TestClient): Record<string, string> {
  return client.secret === null
    ? { client_id: client.client.id }
    : { client_id: client.client.id, client_secret: client.secret };
}

/**
 * The whole flow for a client and user: authorization (with PKCE when public) and code exchange.
 * Returns the token response body (access_token, refresh_token, ...).
 */
export async function issueTokens(
  serverUrl: string,
  client: TestClient,
  user: { email: string; password: string },
  scopes: string[] = client.client.scopes,
  /** A signed-in browser to reuse (no sign-in, remembered consent). */
  browser?: FlowBrowser,
  /** An RFC 8707 `resource`, on the authorization and the code exchange alike. */
  options: { resource?: string } = {},
): Promise<{ access_token: string; refresh_token: string; scope: string; expires_in: number }> {
  const pkce = pkcePair();
  const resource: Record<string, string> = options.resource ? { resource: options.resource } : {};
  const params: Record<string, string> = {
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    state: randomBytes(8).toString('hex'),
    code_challenge: pkce.challenge,
    ...resource,
  };
  if (scopes.length > 0) params.scope = scopes.join(' ');
  const { code } = await obtainCode(serverUrl, params, { user, ...(browser ? { browser } : {}) });
  const response = await tokenRequest(serverUrl, {
    ...clientCredentials(client),
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: pkce.verifier,
    ...resource,
  });
  if (response.status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(response.body)}`);
  return response.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

/** A tiny local HTTP server to use as a redirect URI: records every request it gets. */
export async function startRedirectReceiver(path = '/callback') {
  const received: URL[] = [];
  const waiters: Array<() => void> = [];
  let cursor = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    received.push(url);
    for (const wake of waiters.splice(0)) wake();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Callback</title><p>Back at the application.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    received,
    /** Resolves with the next callback request not returned before (waiting for it if needed). */
    async next(timeoutMs = 15_000): Promise<URL> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < received.length) {
          const hit = received[cursor++]!;
          if (hit.pathname === path) return hit;
        }
        if (Date.now() > until) throw new Error('no redirect arrived');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
