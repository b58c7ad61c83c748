import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { Params } from './params.ts';

/**
 * What oidc-provider's body reader touches of `ctx.req` (`readable`, `readableEncoding`, an
 * async-iterable `iterator()`), answered from one buffer. A class with fixed fields: a new
 * `Readable.from` stream per request (and its async iterator) was a measurable share of a refresh,
 * and an object deriving from the real request made later property reads slow.
 */
class ReplayedBody {
  readonly readable = true;
  readonly readableEncoding = null;
  readonly #chunks: Buffer[];

  constructor(body: Buffer) {
    this.#chunks = [body];
  }

  iterator(): Iterable<Buffer> {
    return this.#chunks;
  }
}

/**
 * oidc-provider reads form bodies from the request itself. Once we have read and validated the
 * body (JSON or form), it gets the parameters back form-encoded: the real request's headers are
 * updated to describe the new body, and `ctx.req`, the one place the library reads the body from,
 * becomes a `ReplayedBody`. Everything else (headers, socket, URL) Koa and the library take from
 * `ctx.request.req`, the real request, which stays as it is.
 */
export function replayAsForm(ctx: Context, params: Params): void {
  const body = Buffer.from(new URLSearchParams(Object.entries(params)).toString(), 'utf8');
  const headers = ctx.request.req.headers;
  headers['content-type'] = 'application/x-www-form-urlencoded';
  headers['content-length'] = String(body.length);
  delete headers['transfer-encoding'];
  ctx.req = new ReplayedBody(body) as unknown as IncomingMessage;
}
