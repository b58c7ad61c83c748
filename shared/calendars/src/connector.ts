import type { Config } from '@sched/kit/config';
/**
 * What every calendar provider (CalDAV, Google, Microsoft) offers the rest of the system. The
 * availability code, the write queue and the API only ever talk to this interface, so a provider
 * is one module behind `connectorFor` (registry.ts).
 */
export type CalendarProvider = 'caldav' | 'google' | 'microsoft';

export interface RemoteCalendar {
  externalId: string;
  name: string;
  readOnly: boolean;
  primary: boolean;
  /**
   * The account's own calendar, not one shared with it or subscribed to (a colleague's, a holiday
   * feed): only those are checked for conflicts until the user chooses otherwise.
   */
  owned: boolean;
}

export interface BusyInterval {
  start: Date;
  end: Date;
}

export interface CalendarEventDraft {
  uid: string;
  title: string;
  description: string;
  start: Date;
  end: Date;
  timeZone: string;
  organizer: { email: string; name: string };
  attendees: { email: string; name: string }[];
}

export interface CalendarConnector {
  /** Display name of the account (email / username). */
  account(): Promise<string>;
  listCalendars(): Promise<RemoteCalendar[]>;
  /** `timeZone` is the host's: all-day events block that day in it. */
  busyTimes(
    calendarIds: string[],
    range: { start: Date; end: Date },
    timeZone: string,
  ): Promise<BusyInterval[]>;
  createEvent(calendarId: string, event: CalendarEventDraft): Promise<{ externalId: string }>;
  updateEvent(calendarId: string, externalId: string, event: CalendarEventDraft): Promise<void>;
  deleteEvent(calendarId: string, externalId: string): Promise<void>;
  /** Where the provider offers it: revoke our access when the user disconnects. */
  revoke?(): Promise<void>;
}

/** The provider refuses the stored credentials: the connection becomes `needs_reauth`. */
export class CredentialsRefusedError extends Error {
  override name = 'CredentialsRefusedError';
}

/** Timeouts, 5xx, network errors: the provider is left out of busy times, writes are retried. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/** Credentials, stored encrypted as JSON. */
export type CalDavCredentials = {
  serverUrl: string;
  username: string;
  password: string;
  calendarHomeUrl?: string;
};
export type OAuthCredentials = { accessToken: string; refreshToken: string; expiresAt: string /* ISO */ };
export type ConnectionCredentials = CalDavCredentials | OAuthCredentials;

/** The part of a stored connection a connector needs: which provider, and its decrypted credentials. */
export interface ConnectorSubject {
  provider: CalendarProvider;
  credentials: CalDavCredentials | OAuthCredentials;
}

export interface ConnectorDeps {
  /** The outbound fetch (@sched/kit/outbound): every provider request goes through it. */
  fetch: typeof globalThis.fetch;
  /** OAuth connectors persist refreshed tokens through this (encrypted by the caller). */
  saveCredentials(credentials: OAuthCredentials): Promise<void>;
  /** Google / Microsoft client and endpoints (config.calendarProviders); unset: not configured. */
  providers: Config['calendarProviders'];
}
