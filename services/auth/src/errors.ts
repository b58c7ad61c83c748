import { AppError } from '@sched/kit/errors';

/**
 * The authorization server's error kinds. Handlers throw them; `render-errors.ts` is the one place
 * that turns them (and kit's generic errors) into responses.
 */

/** An RFC 6749 error answered as JSON `{error, error_description}` (token and revocation endpoints). */
export class OAuthError extends AppError {
  constructor(status: number, error: string, description: string, headers?: Record<string, string>) {
    super(status, error, description, headers ? { headers } : {});
  }
}

/** An authorization request refused on the page itself: HTTP 400, never a redirect to an unchecked URI. */
export class AuthorizationPageError extends AppError {
  readonly title: string;
  constructor(title: string, message: string) {
    super(400, 'invalid_request', message);
    this.title = title;
  }
}

/**
 * An authorization request refused by a 303 to the client's (already verified) redirect_uri with
 * `error`, `error_description`, `state` and `iss` (docs/client-developers.md "Errors a client sees").
 */
export class AuthorizationRedirectError extends AppError {
  readonly redirectUri: string;
  readonly state: string | undefined;
  constructor(redirectUri: string, state: string | undefined, error: string, description: string) {
    super(303, error, description);
    this.redirectUri = redirectUri;
    this.state = state;
  }
}

/** The sign-in or consent step is unknown, expired, or belongs to another browser. */
export class InteractionExpiredError extends AppError {
  constructor(message = 'This sign-in request has expired or was already completed.') {
    super(400, 'interaction_expired', message);
  }
}

/** A form arrived without a valid CSRF token (another site posting, or an outdated page). */
export class CsrfError extends AppError {
  constructor() {
    super(403, 'csrf_failed', 'This form has expired. Go back, reload the page and try again.');
  }
}
