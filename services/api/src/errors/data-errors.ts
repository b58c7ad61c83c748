import { backendFailure } from '@sched/db/availability';
import {
  DataError,
  DuplicateRecordError,
  LimitReachedError,
  type RecordKind,
  RecordNotFoundError,
  RecordStateError,
  RuleRefusedError,
} from '@sched/db/errors';
import { PUBLIC_CLIENT_SECRET_MESSAGE, TOO_MANY_SECRETS_MESSAGE } from '@sched/db/queries/oauth-clients';
import {
  type AppError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
} from '@sched/kit/errors';

/**
 * The API's one mapping of data-layer reports (`@sched/db/errors`) to answers, used by the error
 * envelope (app.ts). A route that needs another answer for its case catches the DataError and
 * throws its own AppError (e.g. the membership routes name `body.userId`).
 */

const inUse = (field: string) => [{ field, message: 'already in use' }];

/** Duplicates by `kind.field`; a duplicate role name is a 400 (bad input, not a conflict of state). */
const DUPLICATES: Partial<Record<string, () => AppError>> = {
  'user.email': () => new ConflictError('A user with this email already exists', inUse('email')),
  'user.username': () => new ConflictError('This username is taken', inUse('username')),
  'organization.slug': () =>
    new ConflictError('An organization with this slug already exists', inUse('slug')),
  'team.slug': () => new ConflictError('A team with this slug already exists', inUse('slug')),
  'eventType.slug': () => new ConflictError('An event type with this slug already exists', inUse('slug')),
  'role.name': () =>
    new BadRequestError('A role with this name already exists in this organization', inUse('body.name')),
  'organizationMembership.user': () => new ConflictError('The user is already a member of this organization'),
  'teamMembership.user': () => new ConflictError('The user is already a member of this team'),
};

const NOUNS: Record<RecordKind, string> = {
  user: 'User',
  organization: 'Organization',
  team: 'Team',
  organizationMembership: 'Membership',
  teamMembership: 'Membership',
  invitation: 'Invitation',
  role: 'Role',
  eventType: 'Event type',
  oauthClient: 'OAuth client',
  oauthClientSecret: 'Client secret',
  calendarConnection: 'Calendar connection',
  calendar: 'Calendar',
};

/** The outage answer: 503 `ServiceUnavailable` with `Retry-After`, nothing about which back end. */
export const OUTAGE_MESSAGE = 'The service is temporarily unavailable. Try again in a few seconds.';

export function dataErrorToAppError(error: unknown): AppError | undefined {
  const down = backendFailure(error);
  if (down) return new ServiceUnavailableError(OUTAGE_MESSAGE, down.retryAfterSeconds);
  if (!(error instanceof DataError)) return undefined;
  if (error instanceof DuplicateRecordError) {
    const answer = DUPLICATES[`${error.kind}.${error.field}`];
    return answer ? answer() : new ConflictError(`This ${error.field} is already in use`, inUse(error.field));
  }
  if (error instanceof RecordNotFoundError) return new NotFoundError(`${NOUNS[error.kind]} not found`);
  if (error instanceof LimitReachedError && error.kind === 'oauthClientSecret') {
    return new BadRequestError(TOO_MANY_SECRETS_MESSAGE);
  }
  if (error instanceof RecordStateError && error.kind === 'oauthClient' && error.state === 'public') {
    return new BadRequestError(PUBLIC_CLIENT_SECRET_MESSAGE);
  }
  if (error instanceof RecordStateError && error.kind === 'calendar')
    return new BadRequestError(error.message);
  // A membership rule judged under the write's locks: the same 403 as when judged before it.
  if (error instanceof RuleRefusedError) return new ForbiddenError(error.reason);
  return undefined;
}
