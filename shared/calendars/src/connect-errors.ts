import { CredentialsRefusedError, ProviderUnavailableError } from './connector.ts';
import { EncryptionKeyMissingError } from './credentials-box.ts';
import { NotACalDavServerError, UNREACHABLE_MESSAGE } from './providers/caldav.ts';
import { CalendarAddressRefusedError } from './service.ts';
import { type AppError, BadRequestError, InternalError } from '@sched/kit/errors';

/**
 * What connecting a calendar can run into, as the API and the pages (settings, onboarding step)
 * answer it (docs/calendars.md "Decisions"): the user's input leads nowhere, so 400 with a message
 * the form can show as is. No provider detail is passed on beyond these fixed sentences.
 */
export function calendarErrorToAppError(error: unknown): AppError | undefined {
  if (error instanceof CredentialsRefusedError) {
    return new BadRequestError('The calendar server refused these credentials', [
      { field: 'body.password', message: 'refused by the calendar server' },
    ]);
  }
  if (error instanceof ProviderUnavailableError) {
    return new BadRequestError(`${UNREACHABLE_MESSAGE}. Check the server URL, or try again later.`, [
      { field: 'body.serverUrl', message: 'unreachable' },
    ]);
  }
  if (error instanceof NotACalDavServerError) {
    return new BadRequestError('No CalDAV calendars were found at this server URL', [
      { field: 'body.serverUrl', message: 'not a CalDAV server' },
    ]);
  }
  if (error instanceof CalendarAddressRefusedError) {
    return new BadRequestError(
      'This server URL is not allowed: it must be https and on the public internet',
      [{ field: 'body.serverUrl', message: 'not allowed' }],
    );
  }
  if (error instanceof EncryptionKeyMissingError) return new InternalError();
  return undefined;
}
