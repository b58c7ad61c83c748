import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Params } from './params.ts';

/**
 * oidc-provider reads form bodies from the request stream itself. Once we have read and validated
 * the body (JSON or form), it gets the parameters back as a fresh form-encoded stream: the request's
 * headers are updated to describe it and `ctx.req`, the one place the library streams from, is
 * replaced. Everything else (headers, socket, IP) still comes from the real request.
 */
export function replayAsForm(ctx: Context, params: Params): void {
  const body = Buffer.from(new URLSearchParams(Object.entries(params)).toString(), 'utf8');
  const headers = ctx.request.req.headers;
  headers['content-type'] = 'application/x-www-form-urlencoded';
  headers['content-length'] = String(body.length);
  delete headers['transfer-encoding'];
  ctx.req = Readable.from([body]) as unknown as IncomingMessage;
}
