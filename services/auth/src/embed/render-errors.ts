import { type AppError, InternalError, toAppError } from '@sched/kit/errors';
import type { Context, Next } from 'koa';
import { AuthorizationPageError, AuthorizationRedirectError, InteractionExpiredError } from '../errors.ts';
import { errorPage } from '../pages/error.ts';
import { sendPage } from '../pages/layout.ts';
import { PATHS } from '../paths.ts';
import { EmbedParentOriginError } from '../embed-flow/errors.ts';
import {
  type EmbedErrorCode,
  embedFlowOf,
  embedPageOptions,
  errorMessage,
  flowFromParams,
  markEmbed,
} from '../embed-flow/flow.ts';

const TITLES: Record<number, string> = {
  400: 'Something is wrong with this request',
  403: 'This request was refused',
  404: 'Page not found',
  409: 'Something is wrong with this request',
  413: 'Request too large',
  429: 'Too many attempts',
  500: 'Something went wrong',
};

/** The onboarding steps' forms: the profile, the calendar step and its CalDAV form. */
const ONBOARDING_STEP = /\/(profile|calendar|calendar\/caldav)$/;

/** Which of the protocol's error codes a failure on this path is (what the user was doing). */
function codeFor(path: string): EmbedErrorCode {
  if (path.endsWith('/signup')) return 'SIGNUP_FAILED';
  if (ONBOARDING_STEP.test(path)) return 'ONBOARDING_FAILED';
  return 'AUTHORIZATION_FAILED';
}

function titleOf(error: AppError): string {
  if (error instanceof AuthorizationPageError || error instanceof EmbedParentOriginError) return error.title;
  if (error instanceof AuthorizationRedirectError) return 'This request cannot continue';
  return TITLES[error.status] ?? TITLES[400]!;
}

/**
 * Errors of an embed flow, shown inside the frame (or popup) instead of the site's ordinary error
 * page: framed by the client's origins only, in the flow's theme, and reported to the embedding
 * page as `onboarding:error` when its origin was checked. The authorization errors otherwise
 * delivered by redirect (invalid_scope, ...) cannot redirect a frame: they are shown here too.
 * Errors outside embed flows go on to render-errors.ts untouched.
 */
export function renderEmbedErrors() {
  return async function renderEmbedErrorsMiddleware(ctx: Context, next: Next) {
    try {
      await next();
    } catch (caught) {
      if (!embedFlowOf(ctx)) {
        if (!ctx.path.startsWith(PATHS.embedPrefix) && !ctx.originalUrl.startsWith(PATHS.embedPrefix))
          throw caught;
        // An embed URL whose client was never resolved: its page may be framed by nobody.
        markEmbed(ctx, flowFromParams(ctx.query as Record<string, unknown>, []));
      }
      const known = toAppError(caught);
      if (!known) ctx.state.log?.error({ err: caught }, 'unhandled error');
      const error = known ?? new InternalError();
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      const status = error instanceof AuthorizationRedirectError ? 400 : error.status;
      const title = titleOf(error);
      const hint =
        error instanceof AuthorizationPageError ||
        error instanceof AuthorizationRedirectError ||
        error instanceof InteractionExpiredError ||
        error instanceof EmbedParentOriginError
          ? 'Close this window and try again. If this keeps happening, contact the developer of the site you came from.'
          : undefined;
      // originalUrl: the entry's path is rewritten to the authorization endpoint on the way in.
      const message = errorMessage(codeFor(ctx.originalUrl.split('?')[0] ?? ''), error.message);
      sendPage(ctx, status, title, errorPage(title, error.message, hint), embedPageOptions(ctx, message));
    }
  };
}
