import type { Context } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The headers every answer of a service carries (its request id and security headers), written
 * with the answer rather than set one by one when the request arrives.
 *
 * Why: each `setHeader` lower-cases its name into a new string and stores a [name, value] pair;
 * six of them cost a bare Koa JSON answer about 5 µs, a fifth of its CPU (issue 22, measured in
 * docs/performance.md). A JSON answer written here goes out with one `writeHead(status, rawArray)`
 * instead: Node validates each pair and writes them without storing them. Every other answer
 * (errors, the router's 405, a preflight, a page) gets the same headers through `setMissing`
 * just before Koa writes it, without replacing one a step set on purpose (the docs page's own
 * Content-Security-Policy).
 */
export class AnswerHeaders {
  /** name, value, name, value ... */
  readonly #flat: readonly string[];
  readonly #pairs: ReadonlyArray<readonly [string, string]>;

  constructor(pairs: ReadonlyArray<readonly [string, string]>) {
    this.#pairs = pairs;
    this.#flat = pairs.flat();
  }

  /** On an answer Koa will write: the request id and each header no step has set. */
  setMissing(ctx: Context, requestId: string): void {
    const res = ctx.res;
    if (res.headersSent) return;
    if (!res.hasHeader('X-Request-Id')) res.setHeader('X-Request-Id', requestId);
    for (const [name, value] of this.#pairs) if (!res.hasHeader(name)) res.setHeader(name, value);
  }

  /**
   * Writes a JSON answer at once (Koa's own writing skipped: `ctx.respond = false`). Headers a step
   * already set on the response (CORS, rate limits, deprecation) are kept: Node merges them.
   * HEAD gets the headers without the body (Node drops it).
   */
  writeJson(
    ctx: Context,
    requestId: string,
    status: number,
    text: string,
    extra?: Record<string, string>,
  ): void {
    const head = ['X-Request-Id', requestId, ...this.#flat];
    let typed = false;
    if (extra) {
      for (const [name, value] of Object.entries(extra)) {
        typed ||= name.toLowerCase() === 'content-type';
        head.push(name, value);
      }
    }
    if (!typed && !ctx.res.hasHeader('Content-Type')) head.push('Content-Type', JSON_TYPE);
    head.push('Content-Length', String(Buffer.byteLength(text)));
    ctx.respond = false;
    ctx.res.writeHead(status, head);
    ctx.res.end(text);
  }
}

/** Where a request's deferred headers are found (set by the service's entry middleware). */
export interface DeferredAnswer {
  readonly requestId: string;
  readonly answerHeaders?: AnswerHeaders;
}

/**
 * A JSON answer, written at once with the service's headers. Only an app whose entry middleware
 * defers them (serviceEntry) answers this way; anywhere else the headers would be missing.
 */
export function answerJson(ctx: Context, status: number, text: string, extra?: Record<string, string>): void {
  const { requestId, answerHeaders } = ctx.state as DeferredAnswer;
  if (!answerHeaders) throw new Error('answerJson needs the serviceEntry middleware in front of it');
  answerHeaders.writeJson(ctx, requestId, status, text, extra);
}
