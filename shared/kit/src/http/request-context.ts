import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import { observeRequest } from './metrics.ts';

/** What every request carries in ctx.state across our services. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Incoming ids are kept when they look like ids (a gateway's), so logs correlate across hops. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && ACCEPTABLE_REQUEST_ID.test(value) ? value : randomUUID();
}

/** First middleware of every Koa app: request id, child logger, access log, metrics. */
export function requestContext(service: string, logger: Logger) {
  return async function requestContextMiddleware(ctx: Context, next: Next) {
    const started = process.hrtime.bigint();
    const requestId = requestIdFrom(ctx.get('x-request-id') || undefined);
    ctx.state.requestId = requestId;
    // The child logger is made on first use: most requests never log, and a pino child per
    // request (with redaction set up) is a measurable share of a fast request's cost.
    let log: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      get: () => {
        log ??= logger.child({ requestId });
        return log;
      },
      enumerable: true,
      configurable: true,
    });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
      observeRequest(
        service,
        ctx.method,
        typeof route === 'string' ? route : 'unmatched',
        ctx.status,
        seconds,
      );
      ctx.state.log.debug(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
  };
}
