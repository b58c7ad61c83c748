import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';
import type { AnswerHeaders } from './answer-headers.ts';
import { observeRequest } from './metrics.ts';

/** What every request carries in ctx.state across our services. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Our request ids: this process's random tag (48 bits, drawn at start) and a counter, so ids are
 * unique across processes and restarts without drawing random bytes per request (a randomUUID per
 * request was a visible share of a fast request's cost, issue 22). Ids are correlation handles,
 * not secrets: that they are predictable within a process gives nobody anything.
 */
const PROCESS_TAG = randomBytes(6).toString('hex');
let sequence = 0;
export function newRequestId(): string {
  sequence++;
  return `${PROCESS_TAG}-${sequence.toString(36)}`;
}

/** Incoming ids are kept when they look like ids (a gateway's), so logs correlate across hops. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && ACCEPTABLE_REQUEST_ID.test(value) ? value : newRequestId();
}

/**
 * ctx.state of a request: the id at once, the child logger on first use. Most requests never log,
 * and a pino child per request (with redaction set up) is a measurable share of a fast request's
 * cost (about 6 KB allocated). A class with a getter, rather than a property defined on each
 * request's state object, keeps one object shape for every request.
 */
class LazyRequestState implements RequestState {
  readonly requestId: string;
  /** The service's headers when they are written with the answer (answer-headers.ts). */
  readonly answerHeaders: AnswerHeaders | undefined;
  readonly #logger: Logger;
  #log: Logger | undefined;

  constructor(requestId: string, logger: Logger, answerHeaders: AnswerHeaders | undefined) {
    this.requestId = requestId;
    this.answerHeaders = answerHeaders;
    this.#logger = logger;
  }

  get log(): Logger {
    this.#log ??= this.#logger.child({ requestId: this.requestId });
    return this.#log;
  }
}

/**
 * Starts a request's context: its id (kept from X-Request-Id when valid), state and id header;
 * with `answerHeaders`, the id header is left to them (written with the answer).
 */
export function beginRequest(ctx: Context, logger: Logger, answerHeaders?: AnswerHeaders): string {
  const requestId = requestIdFrom(ctx.req.headers['x-request-id']);
  // Whatever an outer app put in the state is kept.
  ctx.state = Object.assign(new LazyRequestState(requestId, logger, answerHeaders), ctx.state);
  // The id is valid header text (checked above, or a counter): straight on the Node response.
  if (!answerHeaders) ctx.res.setHeader('X-Request-Id', requestId);
  return requestId;
}

/** Ends a request's context: metrics, and the access line unless `accessLog` is off. */
export function endRequest(
  ctx: Context,
  service: string,
  logger: Logger,
  accessLog: boolean,
  requestId: string,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
  observeRequest(service, ctx.method, typeof route === 'string' ? route : 'unmatched', ctx.status, seconds);
  // On the parent logger with the id as a field: no child logger made just for this line.
  if (accessLog && logger.isLevelEnabled('info')) {
    logger.info(
      {
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(seconds * 1e4) / 10,
      },
      'request',
    );
  }
}

/**
 * First middleware of every Koa app: request id, child logger, metrics, and the access log (one
 * line a request at info, unless `accessLog` is off: ACCESS_LOG=false). The resource API has it
 * inside its one entry middleware instead (service-entry.ts).
 */
export function requestContext(service: string, logger: Logger, options: { accessLog?: boolean } = {}) {
  const accessLog = options.accessLog ?? true;
  return async function requestContextMiddleware(ctx: Context, next: Next) {
    const started = performance.now();
    const requestId = beginRequest(ctx, logger);
    try {
      await next();
    } finally {
      endRequest(ctx, service, logger, accessLog, requestId, started);
    }
  };
}
