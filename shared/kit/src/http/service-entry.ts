import { performance } from 'node:perf_hooks';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import { AnswerHeaders } from './answer-headers.ts';
import { bearerCorsStep } from './cors.ts';
import { type ErrorTranslator, renderError, throwIfBodiless } from './error-envelope.ts';
import { beginRequest, endRequest } from './request-context.ts';
import { securityHeaderList } from './security-headers.ts';
import { assertFitTarget } from './unfit-text.ts';

export interface ServiceEntryOptions {
  /** The metrics' service label. */
  service: string;
  logger: Logger;
  accessLog: boolean;
  /** The configured public URL (https adds Strict-Transport-Security). */
  publicUrl: string;
  /** Bearer CORS (bearerCors): on every path (true), none (false), or the paths this accepts. */
  bearerCors: boolean | ((path: string) => boolean);
  /** See errorEnvelope. */
  translate?: ErrorTranslator;
  /** Runs on every answer once rendered, error or not (the resource API: its Bearer challenge). */
  finish?: (ctx: Context) => void;
}

/** The CORS step for the `bearerCors` option, or none. */
function corsStepOf(bearerCors: ServiceEntryOptions['bearerCors']) {
  if (bearerCors === false) return undefined;
  return bearerCors === true ? bearerCorsStep() : bearerCorsStep(bearerCors);
}

/**
 * What `requestContext`, `securityHeaders`, `bearerCors`, `errorEnvelope` and `rejectUnfitTarget`
 * do as five middlewares in that order, as one: the same steps in the same order, with one
 * koa-compose dispatch and one async frame per request instead of five dispatches and two async
 * frames (the resource API's hot path, issue 22). The request id and security headers are written
 * with the answer (answer-headers.ts): at once by `answerJson`, or set just before Koa writes any
 * other answer.
 */
export function serviceEntry(options: ServiceEntryOptions) {
  const { service, logger, accessLog, translate, finish } = options;
  const answerHeaders = new AnswerHeaders(securityHeaderList([options.publicUrl]));
  const answerCors = corsStepOf(options.bearerCors);
  return async function serviceEntryMiddleware(ctx: Context, next: Next) {
    const started = performance.now();
    const requestId = beginRequest(ctx, logger, answerHeaders);
    try {
      // A preflight is answered here, outside the error envelope (as bearerCors does).
      if (answerCors?.(ctx)) return;
      try {
        // Only a target with a percent sign or a NUL can hold unfit text (Koa's path and
        // querystring getters parse the URL on each call: asked only then).
        const url = ctx.req.url ?? '';
        if (url.includes('%') || url.includes('\u0000')) assertFitTarget(ctx.path, ctx.querystring);
        await next();
        throwIfBodiless(ctx);
      } catch (error) {
        renderError(ctx, error, translate);
      }
      finish?.(ctx);
    } finally {
      answerHeaders.setMissing(ctx, requestId);
      endRequest(ctx, service, logger, accessLog, requestId, started);
    }
  };
}
