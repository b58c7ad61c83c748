// Small HTTP client for the scheduling tests: JSON in, status + parsed JSON out.
import type { TestFn } from 'ava';
import { setUpTestSystem } from '../support/system.ts';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

// biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
export type Json = any;

/** The base URL may be a function, for a server a `test.before` hook starts later. */
export function client(baseUrl: string | (() => string)) {
  return async function call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; rawBody?: string } = {},
  ): Promise<Reply<Json>> {
    const headers: Record<string, string> = {};
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const base = typeof baseUrl === 'function' ? baseUrl() : baseUrl;
    const response = await fetch(`${base}/v2${path}`, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? null : JSON.parse(text),
      headers: response.headers,
    };
  };
}

/** The running system for a scheduling HTTP test file, a `call` client on it and its database. */
export function setUpSchedulingApi<Context>(test: TestFn<Context>) {
  const system = setUpTestSystem(test);
  return { system, call: client(() => system.url), knex: () => system.stores.db.knex };
}
