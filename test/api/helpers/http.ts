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

/** A tiny client of the API under test: `call('GET', '/v2/me', { token })`. */
export function apiClient(baseUrl: string) {
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
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
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
