// Small HTTP client for the scheduling tests: JSON in, status + parsed JSON out.
export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

// biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
export type Json = any;

export function client(baseUrl: string) {
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
    const response = await fetch(`${baseUrl}/v2${path}`, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? null : JSON.parse(text),
      headers: response.headers,
    };
  };
}
