import { backendFailure } from '@sched/db/availability';
import { DataError, DuplicateRecordError, RecordNotFoundError, RecordStateError } from '@sched/db/errors';
import {
  AppError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
} from '@sched/kit/errors';

/**
 * How the authorization server answers the data layer's reports (`@sched/db/errors`). Forms that
 * show a refusal next to a field catch the DataError where they call the data layer (sign-up,
 * onboarding); anything else reaching renderErrors is answered here instead of as a 500.
 */

/** The user field a DuplicateRecordError on users is about, or undefined for any other error. */
export function takenUserField(error: unknown): 'email' | 'username' | undefined {
  if (!(error instanceof DuplicateRecordError) || error.kind !== 'user') return undefined;
  return error.field === 'username' ? 'username' : error.field === 'email' ? 'email' : undefined;
}

/**
 * An outage of Postgres or Redis: a fast 503 with `Retry-After` (README "When Postgres or Redis is
 * down"), rendered as `temporarily_unavailable` on the OAuth endpoints and as a 503 page on browser
 * paths.
 */
export function outageAnswer(error: unknown): AppError | undefined {
  const down = backendFailure(error);
  return down
    ? new ServiceUnavailableError(
        'The service is temporarily unavailable. Try again in a few seconds.',
        down.retryAfterSeconds,
      )
    : undefined;
}

export function dataErrorToAppError(error: unknown): AppError | undefined {
  const outage = outageAnswer(error);
  if (outage) return outage;
  if (!(error instanceof DataError)) return undefined;
  if (error instanceof DuplicateRecordError) return new ConflictError('This is already in use');
  if (error instanceof RecordNotFoundError) return new NotFoundError();
  // A calendar choice the data refuses (a read-only calendar as the destination), as the API answers it.
  if (error instanceof RecordStateError && error.kind === 'calendar')
    return new BadRequestError(error.message);
  return undefined;
}

/** The refusal a form shows for `error` (an AppError, or a data report answered as one); undefined for faults. */
export function formRefusal(error: unknown): AppError | undefined {
  const answer = error instanceof AppError ? error : dataErrorToAppError(error);
  return answer && answer.status < 500 ? answer : undefined;
}
