import type {
  CalDavCredentials,
  CalendarConnector,
  CalendarProvider,
  OAuthCredentials,
} from './connector.ts';
import type { Config } from '@sched/kit/config';
import { createCalDavConnector } from './providers/caldav.ts';
import { createGoogleConnector } from './providers/google.ts';
import { createMicrosoftConnector } from './providers/microsoft.ts';

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

/** Picks the provider's connector for a connection. */
export function connectorFor(connection: ConnectorSubject, deps: ConnectorDeps): CalendarConnector {
  switch (connection.provider) {
    case 'caldav':
      return createCalDavConnector(connection.credentials as CalDavCredentials, deps);
    case 'google':
      return createGoogleConnector(connection.credentials as OAuthCredentials, deps);
    case 'microsoft':
      return createMicrosoftConnector(connection.credentials as OAuthCredentials, deps);
  }
}
