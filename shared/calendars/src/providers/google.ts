import type { CalendarConnector, OAuthCredentials } from '../connector.ts';
import { ProviderUnavailableError } from '../connector.ts';
import type { ConnectorDeps } from '../registry.ts';

/**
 * Placeholder so this branch compiles: the Google connector (OAuth flow, free/busy, event writes)
 * replaces this file on the calendar-oauth branch.
 */
export function createGoogleConnector(
  _credentials: OAuthCredentials,
  _deps: ConnectorDeps,
): CalendarConnector {
  const unavailable = async (): Promise<never> => {
    throw new ProviderUnavailableError('Google calendars are not available in this build');
  };
  return {
    account: unavailable,
    listCalendars: unavailable,
    busyTimes: unavailable,
    createEvent: unavailable,
    updateEvent: unavailable,
    deleteEvent: unavailable,
  };
}
