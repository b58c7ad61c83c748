import type { CalDavCredentials, CalendarConnector } from '../connector.ts';
import { ProviderUnavailableError } from '../connector.ts';

/** CalDAV connector (tsdav + ical.js); filled in next. */
export function createCalDavConnector(_credentials: CalDavCredentials): CalendarConnector {
  const unavailable = async (): Promise<never> => {
    throw new ProviderUnavailableError('not yet');
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
