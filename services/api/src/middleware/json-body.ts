import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';

type KoaBodyOptions = NonNullable<Parameters<typeof koaBody>[0]>;
import { UnsupportedMediaTypeError } from '@sched/kit/errors';

const ONE_MIB = '1mb';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * JSON bodies only, at most 1 MiB (413 above), strict (objects and arrays only). A body with
 * another content type is refused with 415 rather than silently ignored.
 */
export function jsonBody() {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: ONE_MIB,
    jsonStrict: true,
    encoding: 'utf-8',
    // DELETE too: removing several role permissions at once takes a body.
    parsedMethods: [...BODY_METHODS] as unknown as KoaBodyOptions['parsedMethods'],
  });
  // Not async: GET, HEAD and OPTIONS (the hottest paths) pass through without a promise of their
  // own. koa-compose turns the synchronous throw into a rejection.
  return function jsonBodyMiddleware(ctx: Context, next: Next) {
    // GET, HEAD, OPTIONS carry no body: skip the parser (it costs on the hottest paths).
    if (!BODY_METHODS.has(ctx.method)) return next();
    if (ctx.request.length !== undefined && ctx.request.length > 0) {
      if (!ctx.is('application/json', 'application/*+json')) throw new UnsupportedMediaTypeError();
    }
    return parse(ctx, next);
  };
}
