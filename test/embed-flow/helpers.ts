import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { FlowBrowser } from '../support/oauth.ts';
import { insertClient, type TestClient, type TestClientOptions } from '../support/factories.ts';

/**
 * Shared pieces of the onboarding-embed suites: embed entry URLs ("Protocol" 1 of
 * shared/onboarding-embed/README.md) and clients whose redirect URIs sit on a page origin.
 */

export const EMBED_PATH = '/auth/embed/onboarding';

export interface EmbedRequest {
  client: TestClient;
  parentOrigin: string;
  scope?: string;
  state?: string;
  challenge?: string;
  theme?: 'light' | 'dark';
  mode?: 'popup';
  prefill?: { email?: string; name?: string; username?: string };
  extra?: Record<string, string>;
}

export function embedUrl(serverUrl: string, request: EmbedRequest): URL {
  const url = new URL(EMBED_PATH, serverUrl);
  const q = url.searchParams;
  q.set('client_id', request.client.client.id);
  q.set('redirect_uri', request.client.redirectUri);
  q.set('scope', request.scope ?? request.client.client.scopes.join(' '));
  q.set('state', request.state ?? randomBytes(8).toString('hex'));
  if (request.challenge) {
    q.set('code_challenge', request.challenge);
    q.set('code_challenge_method', 'S256');
  }
  q.set('theme', request.theme ?? 'light');
  if (request.prefill?.email) q.set('prefill_email', request.prefill.email);
  if (request.prefill?.name) q.set('prefill_name', request.prefill.name);
  if (request.prefill?.username) q.set('prefill_username', request.prefill.username);
  q.set('parent_origin', request.parentOrigin);
  if (request.mode) q.set('mode', request.mode);
  for (const [key, value] of Object.entries(request.extra ?? {})) q.set(key, value);
  return url;
}

/** A public client (PKCE) whose redirect URI is on `origin` (the embedding page's origin). */
export function createEmbedClient(
  knex: Knex,
  origin: string,
  options: TestClientOptions = {},
): Promise<TestClient> {
  return insertClient(knex, {
    type: 'public',
    name: 'Acme Bookings',
    websiteUrl: 'https://acme.example',
    scopes: ['PROFILE_READ', 'EVENT_TYPE_READ'],
    redirectUris: [`${origin}/callback`],
    ...options,
  });
}

/** The `data-*` attributes of a page's <body> (what the embed script reads). */
export function bodyData(html: string): Record<string, string> {
  const body = /<body\b([^>]*)>/.exec(html)?.[1] ?? '';
  const data: Record<string, string> = {};
  for (const match of body.matchAll(/data-([a-z-]+)="([^"]*)"/g)) {
    data[match[1]!] = match[2]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return data;
}

/** The message a page's script will post after onboarding:ready (its data-message), or null. */
export function pageMessage(html: string): Record<string, unknown> | null {
  const raw = bodyData(html).message;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
}

/** POSTs `fields` as a form to `url` with the browser's cookies, following nothing. */
export function postForm(
  browser: FlowBrowser,
  url: string | URL,
  fields: Record<string, string>,
): Promise<Response> {
  return browser.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}
