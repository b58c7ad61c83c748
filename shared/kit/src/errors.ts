import { StacklessError } from './stackless-error.ts';

export { StacklessError } from './stackless-error.ts';

/**
 * One error class per kind. Handlers throw these; one renderer per service turns them into the
 * response (the API's error envelope, RFC 6749 shape on OAuth endpoints).
 *
 * An AppError is an answer (a 4xx, or the 500 that stands in for a fault), not a fault: it carries
 * no stack trace. Capturing one was the largest single cost of a refused request (a 404 or 401
 * cost more than a successful read), so refusals were the cheapest way to load the server. Faults
 * (any other error) keep their stacks, and the 500 handler logs them.
 */
export class AppError extends StacklessError {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export interface FieldIssue {
  field: string;
  message: string;
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: FieldIssue[] | unknown) {
    super(400, 'BadRequest', message, { details });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or invalid credentials', challenge = 'Bearer') {
    super(401, 'Unauthorized', message, { headers: { 'WWW-Authenticate': challenge } });
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You are not allowed to do this', headers?: Record<string, string>) {
    super(403, 'Forbidden', message, headers ? { headers } : {});
  }
}

/**
 * 403 for a token lacking a scope; RFC 6750 asks for the error in WWW-Authenticate too, with the
 * scopes the call needs (`scope`, so a client can step up: MCP authorization).
 */
export class InsufficientScopeError extends ForbiddenError {
  readonly scopes: readonly string[];

  constructor(message: string, scopes: readonly string[] = []) {
    const scope = scopes.length > 0 ? `, scope="${scopes.join(' ')}"` : '';
    super(message, { 'WWW-Authenticate': `Bearer error="insufficient_scope"${scope}` });
    this.scopes = scopes;
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, 'NotFound', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: unknown) {
    super(409, 'Conflict', message, { details });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is larger than 1 MiB') {
    super(413, 'PayloadTooLarge', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Content-Type must be application/json') {
    super(415, 'UnsupportedMediaType', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(
    retryAfterSeconds: number,
    message = 'Too many requests',
    headers: Record<string, string> = {},
  ) {
    super(429, 'TooManyRequests', message, {
      headers: { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

export class ServiceUnavailableError extends AppError {
  /** With `retryAfterSeconds`, a `Retry-After` header (an outage of a back end: try again soon). */
  constructor(message = 'Service unavailable', retryAfterSeconds?: number) {
    super(
      503,
      'ServiceUnavailable',
      message,
      retryAfterSeconds === undefined
        ? {}
        : { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } },
    );
  }
}

export class InternalError extends AppError {
  constructor(message = 'Internal server error') {
    super(500, 'InternalServerError', message);
  }
}

/** Maps errors thrown by libraries (body parser, http-errors) onto our classes; unknown ones stay unknown. */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as {
    status?: unknown;
    statusCode?: unknown;
    expose?: unknown;
    message?: unknown;
    type?: unknown;
  };
  const status = typeof candidate.status === 'number' ? candidate.status : candidate.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return new PayloadTooLargeError();
  if (status === 415) return new UnsupportedMediaTypeError();
  if (status === 404) return new NotFoundError();
  if (status === 400) {
    // koa-body / raw-body parse failures: say what is wrong without echoing the input.
    const message =
      candidate.type === 'entity.parse.failed' || /JSON|Unexpected|parse/i.test(String(candidate.message))
        ? 'Malformed JSON body'
        : candidate.expose === true && typeof candidate.message === 'string'
          ? candidate.message
          : 'Bad request';
    return new BadRequestError(message);
  }
  return new AppError(
    status,
    'ClientError',
    candidate.expose === true ? String(candidate.message) : 'Request refused',
  );
}
