import type { DAVAccount, DAVCalendar } from 'tsdav';
import {
  type BusyInterval,
  type CalDavCredentials,
  type CalendarConnector,
  type CalendarEventDraft,
  CredentialsRefusedError,
  ProviderUnavailableError,
  type RemoteCalendar,
} from '../connector.ts';

/**
 * tsdav (with xml-js and sax) and ical.js load at the first CalDAV operation, not when the
 * process starts: most starts never talk to a calendar server (docs/performance.md, Start-up).
 */
const importLibraries = () =>
  Promise.all([import('tsdav'), import('../icalendar.ts')]).then(([tsdav, ical]) => ({ tsdav, ical }));
let librariesLoading: ReturnType<typeof importLibraries> | undefined;
const libraries = () => {
  librariesLoading ??= importLibraries();
  return librariesLoading;
};

/**
 * CalDAV (RFC 4791) through tsdav: discovery as RFC 6764 says (/.well-known/caldav, then
 * current-user-principal, calendar-home-set, the calendar collections), events read with a
 * calendar-query over the range and expanded by ical.js (icalendar.ts), bookings written as
 * one object each. Every request goes through the given fetch (the outbound module's).
 */

export const CREDENTIALS_REFUSED_MESSAGE = 'The calendar server refused these credentials';
export const UNREACHABLE_MESSAGE = 'The calendar server could not be reached';

/** The server answered, but no CalDAV calendar home was found at that address. */
export class NotACalDavServerError extends Error {
  override name = 'NotACalDavServerError';
}

type Fetch = typeof globalThis.fetch;

/**
 * What went wrong over one operation's requests: tsdav swallows some failures (discovery tries
 * several URLs), so the fetch it is given records 401s, 5xx and network failures, and the
 * operation's error is judged by them.
 */
function trackedFetch(fetchOut: Fetch) {
  const seen = {
    unauthorized: false,
    unavailable: undefined as string | undefined,
    refused: undefined as Error | undefined,
    /** A request that got no answer at all (timeout, connection refused): the server is down. */
    outage: undefined as unknown,
    /** A 404 or 410: what was asked for is not (any more) on the server. */
    missing: false,
  };
  const fetch: Fetch = async (input, init) => {
    // tsdav tries several URLs in turn (discovery); a server that did not answer one is not waited
    // on again for the next: one operation costs one time limit, not one per URL.
    if (seen.outage !== undefined) throw seen.outage;
    let response: Response;
    try {
      response = await fetchOut(input, init);
    } catch (error) {
      // The outbound module's address/scheme refusals are not outages: reported as they are.
      if (error instanceof Error && error.name === 'OutboundRefusedError') seen.refused = error;
      else {
        seen.unavailable = error instanceof Error ? error.message : String(error);
        seen.outage = error;
      }
      throw error;
    }
    if (response.status === 401) seen.unauthorized = true;
    if (response.status === 404 || response.status === 410) seen.missing = true;
    if (response.status >= 500) seen.unavailable = `HTTP ${response.status}`;
    return response;
  };
  const judge = (error: unknown, otherwise?: Otherwise): Error => {
    if (seen.refused) return seen.refused;
    if (seen.unauthorized) return new CredentialsRefusedError(CREDENTIALS_REFUSED_MESSAGE);
    if (seen.unavailable !== undefined)
      return new ProviderUnavailableError(`${UNREACHABLE_MESSAGE} (${seen.unavailable})`);
    if (otherwise) return otherwise(error, { missing: seen.missing });
    return error instanceof Error ? error : new Error(String(error));
  };
  return { fetch, judge };
}

/** What an operation makes of a failure that is neither a refusal nor an outage. */
type Otherwise = (error: unknown, seen: { missing: boolean }) => Error;

/** A calendar that is no longer on the server (deleted there since it was chosen). */
class CalendarGoneError extends Error {
  override name = 'CalendarGoneError';
}

/**
 * Runs one operation with a fresh tracker; failures come out as the interface's errors, and any
 * other failure through `otherwise` when given.
 */
async function run<T>(
  fetchOut: Fetch,
  operation: (fetch: Fetch) => Promise<T>,
  otherwise?: Otherwise,
): Promise<T> {
  const tracker = trackedFetch(fetchOut);
  try {
    return await operation(tracker.fetch);
  } catch (error) {
    throw tracker.judge(error, otherwise);
  }
}

/**
 * Discovery that fails without a refusal or an outage: the address answered, but not as a CalDAV
 * server does (no principal, no calendar home, an HTML page where XML was expected). That is the
 * user's input leading nowhere, not a fault of ours.
 */
const notCalDav = (error: unknown): Error =>
  error instanceof NotACalDavServerError
    ? error
    : new NotACalDavServerError('No CalDAV calendars were found at this address', { cause: error });

/** A write's answer: 2xx fine, anything else thrown as the interface's errors. */
function expectOk(response: Response, what: string, allowNotFound = false): void {
  if (response.ok || (allowNotFound && response.status === 404)) return;
  if (response.status === 401) throw new CredentialsRefusedError(CREDENTIALS_REFUSED_MESSAGE);
  if (response.status >= 500 || response.status === 429) {
    throw new ProviderUnavailableError(`${what}: the calendar server answered ${response.status}`);
  }
  throw new Error(`${what}: the calendar server answered ${response.status}`);
}

const supportsEvents = (calendar: DAVCalendar) =>
  !calendar.components || calendar.components.length === 0 || calendar.components.includes('VEVENT');

const displayName = (calendar: DAVCalendar): string =>
  typeof calendar.displayName === 'string' && calendar.displayName.trim() !== ''
    ? calendar.displayName
    : decodeURIComponent(new URL(calendar.url).pathname.split('/').filter(Boolean).pop() ?? 'Calendar');

export interface CalDavDeps {
  fetch: Fetch;
}

export interface CalDavDiscovery {
  /** The calendar home found by discovery, kept with the credentials so later calls skip discovery. */
  calendarHomeUrl: string;
  calendars: RemoteCalendar[];
}

export function createCalDavConnector(
  credentials: CalDavCredentials,
  deps: CalDavDeps,
): CalendarConnector & {
  discover(): Promise<CalDavDiscovery>;
} {
  const authorization = async () => {
    const { tsdav } = await libraries();
    return {
      tsdav,
      headers: tsdav.getBasicAuthHeaders({ username: credentials.username, password: credentials.password }),
    };
  };
  let homeUrl = credentials.calendarHomeUrl;

  const account = async (fetch: Fetch): Promise<DAVAccount> => {
    if (homeUrl)
      return { accountType: 'caldav', serverUrl: credentials.serverUrl, rootUrl: homeUrl, homeUrl };
    const { tsdav, headers } = await authorization();
    const found = await tsdav.createAccount({
      account: { accountType: 'caldav', serverUrl: credentials.serverUrl },
      headers,
      fetch,
    });
    if (!found.homeUrl) throw new NotACalDavServerError('No calendar home was found at this address');
    homeUrl = found.homeUrl;
    return found;
  };

  const calendars = async (fetch: Fetch): Promise<RemoteCalendar[]> => {
    const { tsdav, headers } = await authorization();
    const list = (await tsdav.fetchCalendars({ account: await account(fetch), headers, fetch })).filter(
      supportsEvents,
    );
    return list.map((calendar, index) => ({
      externalId: calendar.url,
      name: displayName(calendar),
      // CalDAV offers no cheap read-only flag across servers: the owner's own collections are writable.
      readOnly: false,
      // The collections of the user's own calendar home are theirs.
      owned: true,
      primary: index === 0,
    }));
  };

  const calendarAt = (url: string): DAVCalendar => ({ url });

  return {
    async discover() {
      return run(
        deps.fetch,
        async (fetch) => {
          const list = await calendars(fetch);
          return { calendarHomeUrl: homeUrl!, calendars: list };
        },
        notCalDav,
      );
    },
    async account() {
      return credentials.username;
    },
    async listCalendars() {
      return run(deps.fetch, calendars);
    },
    async busyTimes(calendarIds, range, timeZone): Promise<BusyInterval[]> {
      const timeRange = { start: range.start.toISOString(), end: range.end.toISOString() };
      const perCalendar = await Promise.all(
        calendarIds.map((url) =>
          run(
            deps.fetch,
            async (fetch) => {
              const [{ tsdav, headers }, { ical }] = await Promise.all([authorization(), libraries()]);
              const objects = await tsdav.fetchCalendarObjects({
                calendar: calendarAt(url),
                timeRange,
                // Servers name objects as they like (not always *.ics).
                urlFilter: (href) => href.length > 0,
                headers,
                fetch,
              });
              return objects.flatMap((object) =>
                typeof object.data === 'string' && object.data.includes('BEGIN:VCALENDAR')
                  ? ical.busyIntervalsOf(object.data, range, timeZone)
                  : [],
              );
            },
            // A calendar deleted at the server has nothing busy; failing would leave the account's
            // other calendars out of availability too, until the user reconnected.
            (error, seen) =>
              seen.missing
                ? new CalendarGoneError(url, { cause: error })
                : error instanceof Error
                  ? error
                  : new Error(String(error)),
          ).catch((error: unknown) => {
            if (error instanceof CalendarGoneError) return [];
            throw error;
          }),
        ),
      );
      return perCalendar.flat();
    },
    async createEvent(calendarId, event: CalendarEventDraft) {
      return run(deps.fetch, async (fetch) => {
        const [{ tsdav, headers }, { ical }] = await Promise.all([authorization(), libraries()]);
        const filename = `${encodeURIComponent(event.uid)}.ics`;
        const response = await tsdav.createCalendarObject({
          calendar: calendarAt(calendarId),
          filename,
          iCalString: ical.eventToICalendar(event),
          headers,
          fetch,
        });
        // 412 (If-None-Match: *): an object is already at this booking's own address, put there by
        // an earlier attempt whose answer was lost. It is ours; refusing would fail every retry and
        // leave an event that a cancel could not find.
        if (response.status === 412) await response.body?.cancel();
        else expectOk(response, 'Creating the event');
        return {
          externalId: new URL(filename, calendarId.endsWith('/') ? calendarId : `${calendarId}/`).href,
        };
      });
    },
    async updateEvent(_calendarId, externalId, event) {
      await run(deps.fetch, async (fetch) => {
        const [{ tsdav, headers }, { ical }] = await Promise.all([authorization(), libraries()]);
        const response = await tsdav.updateCalendarObject({
          calendarObject: { url: externalId, data: ical.eventToICalendar(event) },
          headers,
          fetch,
        });
        expectOk(response, 'Moving the event');
      });
    },
    async deleteEvent(_calendarId, externalId) {
      await run(deps.fetch, async (fetch) => {
        const { tsdav, headers } = await authorization();
        const response = await tsdav.deleteCalendarObject({
          calendarObject: { url: externalId },
          headers,
          fetch,
        });
        // Already gone (the user deleted it): nothing left to do.
        expectOk(response, 'Deleting the event', true);
      });
    },
  };
}
