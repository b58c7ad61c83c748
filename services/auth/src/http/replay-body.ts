import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { ReadBody } from './params.ts';

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
 * body (JSON or form), it gets the parameters back form-encoded: `ctx.req`, the one place the
 * library reads the body from, becomes a `ReplayedBody`. Everything else (headers, socket, URL)
 * Koa and the library take from `ctx.request.req`, the real request, which stays as it is.
 *
 * `body.form` (the bytes as received, when they were UTF-8 form encoding) is passed on untouched
 * when the parameters are still what it says (`unchanged`): the usual token request costs no
 * encoding at all. Otherwise (a JSON body, a parameter we dropped) the parameters are encoded
 * again and the real request's headers are updated to describe the new body.
 */
export function replayToProvider(ctx: Context, body: ReadBody, unchanged: boolean): void {
  if (body.form && unchanged) {
    ctx.req = new ReplayedBody(body.form) as unknown as IncomingMessage;
    return;
  }
  const encoded = Buffer.from(new URLSearchParams(Object.entries(body.params)).toString(), 'utf8');
  const headers = ctx.request.req.headers;
  headers['content-type'] = 'application/x-www-form-urlencoded';
  headers['content-length'] = String(encoded.length);
  delete headers['transfer-encoding'];
  ctx.req = new ReplayedBody(encoded) as unknown as IncomingMessage;
}

/** Hands oidc-provider the body bytes we read and checked, unchanged (headers stay as received). */
export function replayRawBody(ctx: Context, raw: Buffer): void {
  ctx.req = new ReplayedBody(raw) as unknown as IncomingMessage;
}
