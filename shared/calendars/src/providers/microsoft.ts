import type { MicrosoftProviderConfig } from '@sched/kit/config';
import { DateTime } from 'luxon';
import type {
  BusyInterval,
  CalendarConnector,
  CalendarEventDraft,
  OAuthCredentials,
  RemoteCalendar,
} from '../connector.ts';
import { ProviderUnavailableError } from '../connector.ts';
import type { ConnectorDeps } from '../connector.ts';
import type { OAuthCalendarProvider, OAuthConnectorDeps } from './oauth-types.ts';
import { jsonOf, oauthSession, ProviderRequestError } from './oauth-session.ts';
import { exchangeCode, refreshCredentials, type TokenClient } from './oauth-tokens.ts';

/**
 * Microsoft 365 / Outlook.com calendars through Microsoft Graph. Scopes: `Calendars.ReadWrite`
 * (the narrowest that lists calendars, reads their events and writes ours) and `offline_access`
 * (a refresh token); the account's address is the default calendar's owner, so no `User.Read`.
 * Busy times come from each chosen calendar's calendarView (getSchedule answers per mailbox, not
 * per calendar). Microsoft offers no revocation of one delegated grant: disconnecting deletes
 * our tokens, and the user removes the app at https://myapplications.microsoft.com if they wish.
 */
const NAME = 'Microsoft Graph';

export const MICROSOFT_SCOPES = ['offline_access', 'Calendars.ReadWrite'] as const;

/** calendarView pages; the cap keeps one busy-time read bounded. */
const PAGE_SIZE = 250;
const MAX_PAGES = 20;

const tokenClient = (config: MicrosoftProviderConfig): TokenClient => ({
  tokenUrl: `${config.authorityUrl}/oauth2/v2.0/token`,
  clientId: config.clientId,
  clientSecret: config.clientSecret,
  scope: MICROSOFT_SCOPES.join(' '),
});

export function microsoftProvider(config: MicrosoftProviderConfig): OAuthCalendarProvider {
  return {
    id: 'microsoft',
    label: 'Outlook Calendar',
    authorizationUrl({ redirectUri, state, codeChallenge }) {
      const url = new URL(`${config.authorityUrl}/oauth2/v2.0/authorize`);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        response_mode: 'query',
        scope: MICROSOFT_SCOPES.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        prompt: 'select_account',
      }).toString();
      return url.href;
    },
    exchangeCode: (fetchOut, params) => exchangeCode(fetchOut, tokenClient(config), params, NAME),
    connector: (deps) => microsoftConnector(config, deps),
  };
}

interface GraphCalendar {
  id: string;
  name?: string;
  canEdit?: boolean;
  isDefaultCalendar?: boolean;
  owner?: { name?: string; address?: string };
}

interface GraphEvent {
  showAs?: string;
  isCancelled?: boolean;
  isAllDay?: boolean;
  start?: { dateTime: string; timeZone?: string };
  end?: { dateTime: string; timeZone?: string };
}

/** Graph's dateTime ("2026-11-27T10:00:00.0000000") in UTC, as asked with Prefer: outlook.timezone. */
const utcInstant = (value: string) => new Date(`${value.replace(/\.\d+$/, '')}Z`);

/** An all-day event blocks whole days in the host's time zone, whatever zone Graph wrote it in. */
function allDayInterval(event: GraphEvent, timeZone: string): BusyInterval {
  const day = (value: string) =>
    DateTime.fromISO(value.slice(0, 10), { zone: timeZone }).startOf('day').toJSDate();
  return { start: day(event.start!.dateTime), end: day(event.end!.dateTime) };
}

/** Opaque time: busy, tentative, out of office. Free and working elsewhere do not block; cancelled neither. */
const blocks = (event: GraphEvent) =>
  !event.isCancelled && event.showAs !== 'free' && event.showAs !== 'workingElsewhere';

/** Graph wants local date-times with a zone name; ours are instants, written in UTC. */
const graphDateTime = (instant: Date) => ({
  dateTime: instant.toISOString().replace(/Z$/, ''),
  timeZone: 'UTC',
});

function eventBody(event: CalendarEventDraft) {
  return {
    subject: event.title,
    body: { contentType: 'text', content: event.description },
    start: graphDateTime(event.start),
    end: graphDateTime(event.end),
    attendees: event.attendees.map((attendee) => ({
      emailAddress: { address: attendee.email, name: attendee.name },
      type: 'required',
    })),
  };
}

export function microsoftConnector(
  config: MicrosoftProviderConfig,
  deps: OAuthConnectorDeps,
): CalendarConnector {
  const session = oauthSession({
    credentials: deps.credentials,
    fetch: deps.fetch,
    refresh: (credentials: OAuthCredentials) =>
      refreshCredentials(deps.fetch, tokenClient(config), credentials, NAME),
    save: deps.saveCredentials,
    providerName: NAME,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const graph = (path: string, query: Record<string, string> = {}) => {
    const url = new URL(`${config.graphUrl}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.href;
  };
  const graphOrigin = new URL(config.graphUrl).origin;
  /** Follows @odata.nextLink only on Graph's own origin (it comes from the answer). */
  const nextLink = (value: unknown): string | undefined =>
    typeof value === 'string' && URL.parse(value)?.origin === graphOrigin ? value : undefined;
  const jsonBody = (method: string, body: unknown): RequestInit => ({
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  async function pages<T>(first: string, what: string, init?: RequestInit): Promise<T[]> {
    const items: T[] = [];
    let url: string | undefined = first;
    for (let page = 0; url && page < MAX_PAGES; page += 1) {
      const answer: { value?: T[]; '@odata.nextLink'?: unknown } = await jsonOf(
        await session.request(url, init),
        what,
        NAME,
      );
      items.push(...(answer.value ?? []));
      url = nextLink(answer['@odata.nextLink']);
    }
    return items;
  }

  const calendars = () =>
    pages<GraphCalendar>(
      graph('/me/calendars', { $select: 'id,name,canEdit,isDefaultCalendar,owner', $top: '100' }),
      'calendars',
    );

  return {
    async account() {
      const all = await calendars();
      const primary = all.find((calendar) => calendar.isDefaultCalendar) ?? all[0];
      return primary?.owner?.address ?? primary?.owner?.name ?? 'Microsoft account';
    },

    async listCalendars(): Promise<RemoteCalendar[]> {
      const all = await calendars();
      // The mailbox's own calendars have the default calendar's owner; shared ones, someone else.
      const self = (
        all.find((calendar) => calendar.isDefaultCalendar) ?? all[0]
      )?.owner?.address?.toLowerCase();
      return all.map((calendar) => ({
        externalId: calendar.id,
        name: calendar.name ?? calendar.id,
        readOnly: calendar.canEdit === false,
        primary: calendar.isDefaultCalendar === true,
        owned:
          self === undefined ||
          calendar.owner?.address === undefined ||
          calendar.owner.address.toLowerCase() === self,
      }));
    },

    async busyTimes(calendarIds, range, timeZone): Promise<BusyInterval[]> {
      const busy: BusyInterval[] = [];
      for (const calendarId of calendarIds) {
        const events = await pages<GraphEvent>(
          graph(`/me/calendars/${encodeURIComponent(calendarId)}/calendarView`, {
            startDateTime: range.start.toISOString(),
            endDateTime: range.end.toISOString(),
            $select: 'showAs,isCancelled,isAllDay,start,end',
            $top: String(PAGE_SIZE),
          }),
          'calendarView',
          { headers: { prefer: 'outlook.timezone="UTC"' } },
        ).catch((error: unknown) => {
          // A calendar deleted at Microsoft since it was chosen has nothing busy; failing would
          // leave the account's other calendars out of availability too.
          if (error instanceof ProviderRequestError && error.status === 404) return [];
          throw error;
        });
        for (const event of events) {
          if (!blocks(event) || !event.start || !event.end) continue;
          busy.push(
            event.isAllDay
              ? allDayInterval(event, timeZone)
              : { start: utcInstant(event.start.dateTime), end: utcInstant(event.end.dateTime) },
          );
        }
      }
      return busy;
    },

    async createEvent(calendarId, event) {
      const created = await jsonOf<{ id?: string }>(
        await session.request(
          graph(`/me/calendars/${encodeURIComponent(calendarId)}/events`),
          // transactionId: Graph answers a retried POST with the event it already made.
          jsonBody('POST', { ...eventBody(event), transactionId: event.uid }),
        ),
        'events.create',
        NAME,
      );
      if (!created.id) throw new ProviderUnavailableError(`${NAME} events.create answered without an id`);
      return { externalId: created.id };
    },

    async updateEvent(_calendarId, externalId, event) {
      await jsonOf(
        await session.request(
          graph(`/me/events/${encodeURIComponent(externalId)}`),
          jsonBody('PATCH', eventBody(event)),
        ),
        'events.update',
        NAME,
      );
    },

    async deleteEvent(_calendarId, externalId) {
      // Deleting a meeting on the organizer's calendar sends the attendees a cancellation.
      const response = await session.request(graph(`/me/events/${encodeURIComponent(externalId)}`), {
        method: 'DELETE',
      });
      if (response.status === 404) return void (await response.body?.cancel());
      await jsonOf(response, 'events.delete', NAME);
    },
  };
}

/** The registry's entry (registry.ts): Microsoft's connector for a stored connection. */
export function createMicrosoftConnector(
  credentials: OAuthCredentials,
  deps: ConnectorDeps,
): CalendarConnector {
  if (!deps.providers.microsoft) throw new ProviderUnavailableError(`${NAME} is not configured`);
  return microsoftConnector(deps.providers.microsoft, {
    credentials,
    fetch: deps.fetch,
    saveCredentials: deps.saveCredentials,
  });
}
