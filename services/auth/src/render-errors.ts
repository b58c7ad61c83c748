import { type AppError, InternalError, NotFoundError, toAppError } from '@sched/kit/errors';
import type { Context, Next } from 'koa';
import { dataErrorToAppError, outageAnswer } from './data-errors.ts';
import { AuthorizationPageError, AuthorizationRedirectError, InteractionExpiredError } from './errors.ts';
import { errorPage } from './pages/error.ts';
import { sendPage } from './pages/layout.ts';
import { isPagePath } from './paths.ts';

/** RFC 6749-style `error` codes for kit's generic errors on the JSON endpoints. */
const OAUTH_CODES: Record<string, string> = {
  BadRequest: 'invalid_request',
  PayloadTooLarge: 'invalid_request',
  UnsupportedMediaType: 'invalid_request',
  NotFound: 'not_found',
  TooManyRequests: 'too_many_requests',
  InternalServerError: 'server_error',
  ServiceUnavailable: 'temporarily_unavailable',
};

const PAGE_TITLES: Record<number, string> = {
  400: 'Something is wrong with this request',
  403: 'This request was refused',
  404: 'Page not found',
  413: 'Request too large',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

function redirectTo(ctx: Context, error: AuthorizationRedirectError, issuer: string): void {
  const target = new URL(error.redirectUri);
  target.searchParams.set('error', error.code);
  target.searchParams.set('error_description', error.message);
  if (error.state !== undefined) target.searchParams.set('state', error.state);
  target.searchParams.set('iss', issuer);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.redirect(target.href);
}

function renderPage(ctx: Context, error: AppError): void {
  const title =
    error instanceof AuthorizationPageError ? error.title : (PAGE_TITLES[error.status] ?? PAGE_TITLES[400]!);
  const hint =
    error instanceof AuthorizationPageError || error instanceof InteractionExpiredError
      ? 'Go back to the application you came from and try again. If this keeps happening, contact its developer.'
      : undefined;
  sendPage(ctx, error.status, title, errorPage(title, error.message, hint));
}

function renderJson(ctx: Context, error: AppError): void {
  ctx.status = error.status;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.body = { error: OAUTH_CODES[error.code] ?? error.code, error_description: error.message };
}

/**
 * The one place errors of the authorization server become responses: a 303 back to the client for
 * redirectable authorization errors, an HTML page on browser paths, `{error, error_description}`
 * elsewhere. Unknown errors are logged and shown as a 500 that says nothing about internals.
 */
export function renderErrors(issuer: string) {
  return async function renderErrorsMiddleware(ctx: Context, next: Next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null && ctx.respond !== false) {
        throw new NotFoundError(`Nothing here: ${ctx.method} ${ctx.path}`);
      }
      // oidc-provider answered a 500 itself; its server_error listener kept an outage's cause.
      if (ctx.status >= 500 && ctx.state.backendFailure !== undefined) throw ctx.state.backendFailure;
    } catch (caught) {
      if (caught instanceof AuthorizationRedirectError) return redirectTo(ctx, caught, issuer);
      let known = dataErrorToAppError(caught) ?? toAppError(caught);
      // A wrapper's 500 for what oidc-provider refused because a back end was down: an outage.
      if ((known === undefined || known.status >= 500) && ctx.state.backendFailure !== undefined) {
        known = outageAnswer(ctx.state.backendFailure) ?? known;
      }
      if (!known) ctx.state.log?.error({ err: caught }, 'unhandled error');
      const error = known ?? new InternalError();
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      if (isPagePath(ctx.path)) renderPage(ctx, error);
      else renderJson(ctx, error);
    }
  };
}
