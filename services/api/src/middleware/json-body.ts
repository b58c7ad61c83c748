import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';

type KoaBodyOptions = NonNullable<Parameters<typeof koaBody>[0]>;
import { BadRequestError, UnsupportedMediaTypeError } from '@sched/kit/errors';
import { assertFitBody } from '@sched/kit/http/unfit-text';

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
    let parsed = false;
    return parse(ctx, () => {
      parsed = true;
      // Strings that may not enter (NUL, lone surrogates) are refused here, once, for every route.
      assertFitBody((ctx.request as { body?: unknown }).body);
      return next();
    }).catch((error: unknown) => {
      throw parsed ? error : bodyError(error, ctx.get('content-encoding'));
    });
  };
}

/**
 * What reading the body failed on, as an answer: a Content-Encoding we do not decode is 415, a
 * body that is not what its encoding claims (gzip, deflate or br that does not decode) is 400.
 * Anything else the parser throws is left to the error envelope.
 */
function bodyError(error: unknown, encoding: string): unknown {
  const { status, message, code } = error as { status?: unknown; message?: unknown; code?: unknown };
  // The inflation package's refusal (the only 415 the parser throws after our Content-Type check).
  if (status === 415 && String(message).startsWith('Unsupported Content-Encoding')) {
    return new UnsupportedMediaTypeError(
      `Content-Encoding ${encoding} is not supported: send gzip, deflate, br or an unencoded body`,
    );
  }
  // zlib's codes are Z_* for gzip and deflate; brotli's decoder reports ERR__ERROR_FORMAT_* and the like.
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_'))) {
    return new BadRequestError(`Request body is not valid ${encoding || 'compressed'} data`);
  }
  return error;
}
