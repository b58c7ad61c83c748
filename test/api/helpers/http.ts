import type { TestFn } from 'ava';
import { setUpTestSystem } from '../../support/system.ts';

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
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A tiny client of the API under test: `call('GET', '/v2/me', { token })`. The base URL may be a
 * function, for a server a `test.before` hook starts later.
 */
export function apiClient(baseUrl: string | (() => string)) {
  return async function call<T = Json>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const base = typeof baseUrl === 'function' ? baseUrl() : baseUrl;
    const response = await fetch(`${base}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON (the docs page)
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}

export type Call = ReturnType<typeof apiClient>;

/** The running system for an API test file (see setUpTestSystem), a `call` client on it, its knex. */
export function setUpApiSystem<Context>(test: TestFn<Context>, env?: Parameters<typeof setUpTestSystem>[1]) {
  const system = setUpTestSystem(test, env);
  return { system, call: apiClient(() => system.url), knex: () => system.stores.db.knex };
}

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
