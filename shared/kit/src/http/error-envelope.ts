import type { Context, Next } from 'koa';
import { AppError, InternalError, NotFoundError, toAppError } from '../errors.ts';

/** The API's error body, the same shape on every route and for every status. */
export function errorBody(error: AppError, path: string) {
  return {
    status: 'error' as const,
    timestamp: new Date().toISOString(),
    path,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

function bodilessAnswer(ctx: Context): AppError {
  if (ctx.status === 404) return new NotFoundError(`No route for ${ctx.method} ${ctx.path}`);
  const allow = ctx.response.get('Allow');
  if (ctx.status === 405) {
    return new AppError(405, 'MethodNotAllowed', `${ctx.method} is not allowed here; allowed: ${allow}`, {
      headers: { Allow: allow },
    });
  }
  return new AppError(ctx.status, 'ClientError', 'Request refused');
}

/** Turns errors of another layer (e.g. the data layer's reports) into answers; undefined = not one of its. */
export type ErrorTranslator = (error: unknown) => AppError | undefined;

/**
 * The one place API errors are rendered. `translate` (the service's mapping of data-layer errors)
 * is tried first. Unknown errors become a 500 that says nothing about internals; the cause goes to
 * the log with the request id. (The resource API runs the same steps inside its one entry
 * middleware, service-entry.ts.)
 */
export function errorEnvelope(translate?: ErrorTranslator) {
  return async function errorEnvelopeMiddleware(ctx: Context, next: Next) {
    try {
      await next();
      throwIfBodiless(ctx);
    } catch (error) {
      renderError(ctx, error, translate);
    }
  };
}

/** A status without a body (no route; the router's 405 for a known path) is an error too. */
export function throwIfBodiless(ctx: Context): void {
  if (ctx.body === undefined && ctx.status >= 400) throw bodilessAnswer(ctx);
}

/** Renders `error` as the answer (see errorEnvelope). */
export function renderError(ctx: Context, error: unknown, translate: ErrorTranslator | undefined): void {
  const known = translate?.(error) ?? toAppError(error);
  if (!known) ctx.state.log?.error({ err: error }, 'unhandled error');
  const rendered = known ?? new InternalError();
  ctx.status = rendered.status;
  for (const [name, value] of Object.entries(rendered.headers)) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = errorBody(rendered, ctx.path);
}
