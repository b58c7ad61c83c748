// A tiny HTTP client of the system under test, for tests: `call('GET', '/v2/me', { token })`.

import { assertMatchesDocument } from './openapi-check.ts';

/** Response bodies are read loosely in tests (`response.body.error.message`). */
// biome-ignore lint/suspicious/noExplicitAny: test code reads JSON bodies without declaring each shape
export type Json = any;

export interface ApiResponse<T = Json> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  /** API key or access token, sent as `Authorization: Bearer ...`. */
  token?: string | undefined;
  /** JSON-encoded unless a string (sent as is, still as application/json unless a header says otherwise). */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A client of the API under test: `call('GET', '/v2/me', { token })`. The body of the response is
 * parsed JSON (the text when not JSON, `emptyBody` when empty: undefined unless told). The base
 * URL may be a function, for a server a `test.before` hook starts later. `prefix` is put before
 * every path (`{ prefix: '/v2' }`). Every answer of the resource API is checked against its OpenAPI
 * document (openapi-check.ts): one that does not match fails the test.
 */
export function apiClient(
  baseUrl: string | (() => string),
  options: { prefix?: string; emptyBody?: null | undefined } = {},
) {
  const prefix = options.prefix ?? '';
  return async function call<T = Json>(
    method: string,
    path: string,
    request: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.token !== undefined) headers['authorization'] = `Bearer ${request.token}`;
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    }
    const base = typeof baseUrl === 'function' ? baseUrl() : baseUrl;
    const url = `${base}${prefix}${path}`;
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? options.emptyBody : JSON.parse(text);
    } catch {
      // not JSON (the docs page)
    }
    assertMatchesDocument(method, url, response.status, parsed);
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}

export type Call = ReturnType<typeof apiClient>;

/** Runs tasks with at most `limit` at a time; results in order. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  });
  await Promise.all(workers);
  return results;
}
