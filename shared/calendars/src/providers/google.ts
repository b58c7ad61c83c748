import type { GoogleProviderConfig } from '@sched/kit/config';
import type {
  BusyInterval,
  CalendarConnector,
  CalendarEventDraft,
  OAuthCredentials,
  RemoteCalendar,
} from '../connector.ts';
import { ProviderUnavailableError } from '../connector.ts';
import type { OAuthCalendarProvider, OAuthConnectorDeps } from './oauth-types.ts';
import { jsonOf, oauthSession, ProviderRequestError } from './oauth-session.ts';
import type { ConnectorDeps } from '../connector.ts';
import { exchangeCode, refreshCredentials, type TokenClient } from './oauth-tokens.ts';

/**
 * Google Calendar (API v3) as a calendar connection. The scopes are the narrowest that do the job:
 * the calendar list (names, access roles), free/busy of those calendars, and events on calendars
 * the user owns; the account's address is the primary calendar's id, so no profile scope is asked.
 * Endpoints come from configuration (GOOGLE_*_URL) with Google's public ones as defaults.
 */
const NAME = 'Google Calendar';

export const GOOGLE_SCOPES = [
  'https://www.googleapis.com/auth/calendar.calendarlist.readonly',
  'https://www.googleapis.com/auth/calendar.events.freebusy',
  'https://www.googleapis.com/auth/calendar.events.owned',
] as const;

/** freeBusy takes at most 50 calendars a request. */
const FREEBUSY_BATCH = 50;

const tokenClient = (config: GoogleProviderConfig): TokenClient => ({
  tokenUrl: config.tokenUrl,
  clientId: config.clientId,
  clientSecret: config.clientSecret,
  // Google's consent screen lets the user untick each scope.
  requiredScopes: GOOGLE_SCOPES,
});

/** The authorization-code flow of our server as Google's client (offline access, PKCE S256). */
export function googleProvider(config: GoogleProviderConfig): OAuthCalendarProvider {
  return {
    id: 'google',
    label: 'Google Calendar',
    authorizationUrl({ redirectUri, state, codeChallenge }) {
      const url = new URL(config.authUrl);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: GOOGLE_SCOPES.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        // A refresh token, and asked again on a reconnect (Google only returns one with consent).
        access_type: 'offline',
        prompt: 'consent',
      }).toString();
      return url.href;
    },
    exchangeCode: (fetchOut, params) => exchangeCode(fetchOut, tokenClient(config), params, NAME),
    connector: (deps) => googleConnector(config, deps),
  };
}

interface CalendarListEntry {
  id: string;
  summary?: string;
  summaryOverride?: string;
  accessRole?: string;
  primary?: boolean;
  deleted?: boolean;
}

interface EventResource {
  id: string;
}

function eventBody(event: CalendarEventDraft) {
  return {
    summary: event.title,
    description: event.description,
    start: { dateTime: event.start.toISOString(), timeZone: event.timeZone },
    end: { dateTime: event.end.toISOString(), timeZone: event.timeZone },
    attendees: event.attendees.map((attendee) => ({ email: attendee.email, displayName: attendee.name })),
    guestsCanModify: false,
  };
}

export function googleConnector(config: GoogleProviderConfig, deps: OAuthConnectorDeps): CalendarConnector {
  const session = oauthSession({
    credentials: deps.credentials,
    fetch: deps.fetch,
    refresh: (credentials: OAuthCredentials) =>
      refreshCredentials(deps.fetch, tokenClient(config), credentials, NAME),
    save: deps.saveCredentials,
    providerName: NAME,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const api = (path: string, query: Record<string, string> = {}) => {
    const url = new URL(`${config.calendarApiUrl}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.href;
  };
  const eventsOf = (calendarId: string) => `/calendars/${encodeURIComponent(calendarId)}/events`;
  const jsonBody = (method: string, body: unknown): RequestInit => ({
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  async function calendarList(): Promise<CalendarListEntry[]> {
    const entries: CalendarListEntry[] = [];
    let pageToken: string | undefined;
    do {
      const query: Record<string, string> = { maxResults: '250' };
      if (pageToken) query.pageToken = pageToken;
      const page = await jsonOf<{ items?: CalendarListEntry[]; nextPageToken?: string }>(
        await session.request(api('/users/me/calendarList', query)),
        'calendarList',
        NAME,
      );
      entries.push(...(page.items ?? []).filter((entry) => !entry.deleted));
      pageToken = page.nextPageToken;
    } while (pageToken && entries.length < 2000);
    return entries;
  }

  /** The event we created earlier under this uid (a retried insert after a lost answer). */
  async function findByUid(calendarId: string, uid: string): Promise<string | undefined> {
    const found = await jsonOf<{ items?: EventResource[] }>(
      await session.request(api(eventsOf(calendarId), { iCalUID: uid, showDeleted: 'false' })),
      'events.list',
      NAME,
    );
    return found.items?.[0]?.id;
  }

  return {
    async account() {
      const entries = await calendarList();
      const primary = entries.find((entry) => entry.primary) ?? entries[0];
      return primary?.id ?? 'Google account';
    },

    async listCalendars(): Promise<RemoteCalendar[]> {
      return (await calendarList())
        .filter((entry) => entry.accessRole !== 'freeBusyReader' || entry.primary)
        .map((entry) => ({
          externalId: entry.id,
          name: entry.summaryOverride ?? entry.summary ?? entry.id,
          readOnly: entry.accessRole !== 'owner' && entry.accessRole !== 'writer',
          primary: entry.primary === true,
          owned: entry.accessRole === 'owner',
        }));
    },

    async busyTimes(calendarIds, range, timeZone): Promise<BusyInterval[]> {
      const busy: BusyInterval[] = [];
      for (let index = 0; index < calendarIds.length; index += FREEBUSY_BATCH) {
        const ids = calendarIds.slice(index, index + FREEBUSY_BATCH);
        const answer = await jsonOf<{
          calendars?: Record<
            string,
            { busy?: { start: string; end: string }[]; errors?: { reason?: string }[] }
          >;
        }>(
          await session.request(
            api('/freeBusy'),
            jsonBody('POST', {
              timeMin: range.start.toISOString(),
              timeMax: range.end.toISOString(),
              timeZone,
              items: ids.map((id) => ({ id })),
            }),
          ),
          'freeBusy',
          NAME,
        );
        for (const id of ids) {
          const calendar = answer.calendars?.[id];
          // A calendar deleted at Google since it was chosen has nothing busy; any other error
          // would hide busy time, so the whole answer counts as unavailable.
          const errors = (calendar?.errors ?? []).filter((error) => error.reason !== 'notFound');
          if (errors.length > 0)
            throw new ProviderUnavailableError(`${NAME} freeBusy: ${errors[0]?.reason ?? 'error'}`);
          for (const interval of calendar?.busy ?? [])
            busy.push({ start: new Date(interval.start), end: new Date(interval.end) });
        }
      }
      return busy;
    },

    async createEvent(calendarId, event) {
      // iCalUID makes a retried insert detectable: Google answers 409 for a uid it already has.
      const response = await session.request(
        api(eventsOf(calendarId), { sendUpdates: 'all' }),
        jsonBody('POST', { ...eventBody(event), iCalUID: event.uid }),
      );
      if (response.status === 409) {
        await response.body?.cancel();
        const existing = await findByUid(calendarId, event.uid);
        if (existing) return { externalId: existing };
        throw new ProviderRequestError(`${NAME} events.insert answered 409`, 409);
      }
      const created = await jsonOf<EventResource>(response, 'events.insert', NAME);
      return { externalId: created.id };
    },

    async updateEvent(calendarId, externalId, event) {
      await jsonOf(
        await session.request(
          api(`${eventsOf(calendarId)}/${encodeURIComponent(externalId)}`, { sendUpdates: 'all' }),
          jsonBody('PATCH', eventBody(event)),
        ),
        'events.patch',
        NAME,
      );
    },

    async deleteEvent(calendarId, externalId) {
      const response = await session.request(
        api(`${eventsOf(calendarId)}/${encodeURIComponent(externalId)}`, { sendUpdates: 'all' }),
        { method: 'DELETE' },
      );
      // Already gone (deleted by the user, or by an earlier try whose answer was lost).
      if (response.status === 404 || response.status === 410) return void (await response.body?.cancel());
      await jsonOf(response, 'events.delete', NAME);
    },

    async revoke() {
      // Revoking the refresh token ends the whole grant at Google (RFC 7009 style endpoint).
      let response: Response;
      try {
        response = await deps.fetch(config.revokeUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: session.credentials().refreshToken }),
        });
      } catch (error) {
        throw new ProviderUnavailableError(`${NAME} revocation endpoint unreachable`, { cause: error });
      }
      await response.body?.cancel();
      // 400 invalid_token: already revoked or expired, which is what we wanted.
      if (!response.ok && response.status !== 400)
        throw new ProviderUnavailableError(`${NAME} revocation answered ${response.status}`);
    },
  };
}

/** The registry's entry (registry.ts): Google's connector for a stored connection. */
export function createGoogleConnector(credentials: OAuthCredentials, deps: ConnectorDeps): CalendarConnector {
  if (!deps.providers.google) throw new ProviderUnavailableError(`${NAME} is not configured`);
  return googleConnector(deps.providers.google, {
    credentials,
    fetch: deps.fetch,
    saveCredentials: deps.saveCredentials,
  });
}
