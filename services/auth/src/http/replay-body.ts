import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { Params } from './params.ts';

/**
 * oidc-provider reads form bodies from the request stream itself. Once we have read and validated
 * the body (JSON or form), it gets the parameters back as a form-encoded body: the request's headers
 * are updated to describe it and `ctx.req`, the one place the library reads the body from, becomes
 * the real request with only its body replaced (headers, socket, URL still come from the real one).
 *
 * The replacement answers what the library's reader uses (`readable`, `readableEncoding` and an
 * async-iterable `iterator()`) with the one buffer, instead of a new stream per request: a
 * `Readable.from` stream and its async iterator were a measurable share of a refresh's cost.
 * test/auth/token-json.test.ts and every token test run through it.
 */
export function replayAsForm(ctx: Context, params: Params): void {
  const body = Buffer.from(new URLSearchParams(Object.entries(params)).toString(), 'utf8');
  const real = ctx.request.req;
  const headers = real.headers;
  headers['content-type'] = 'application/x-www-form-urlencoded';
  headers['content-length'] = String(body.length);
  delete headers['transfer-encoding'];
  const replayed = Object.create(real) as IncomingMessage;
  Object.defineProperties(replayed, {
    readable: { value: true },
    readableEncoding: { value: null },
    iterator: { value: () => [body] },
  });
  ctx.req = replayed;
}
