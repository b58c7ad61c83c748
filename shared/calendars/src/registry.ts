import type {
  CalDavCredentials,
  CalendarConnector,
  CalendarProvider,
  OAuthCredentials,
} from './connector.ts';
import type { Config } from '@sched/kit/config';
import type { Fetch } from './providers/oauth-tokens.ts';
import { createCalDavConnector } from './providers/caldav.ts';
import { createGoogleConnector } from './providers/google.ts';
import { createMicrosoftConnector } from './providers/microsoft.ts';

/** The part of a stored connection a connector needs: which provider, and its decrypted credentials. */
export interface ConnectorSubject {
  provider: CalendarProvider;
  credentials: CalDavCredentials | OAuthCredentials;
}

export interface ConnectorDeps {
  /** OAuth connectors persist refreshed tokens through this (encrypted by the caller). */
  saveCredentials(credentials: OAuthCredentials): Promise<void>;
  /** Google / Microsoft client and endpoints (config.calendarProviders); unset: not configured. */
  providers: Config['calendarProviders'];
  /** The outbound module's fetch (address rule, size and time caps) for the OAuth providers. */
  fetch: Fetch;
}

/** Picks the provider's connector for a connection. */
export function connectorFor(connection: ConnectorSubject, deps: ConnectorDeps): CalendarConnector {
  switch (connection.provider) {
    case 'caldav':
      return createCalDavConnector(connection.credentials as CalDavCredentials);
    case 'google':
      return createGoogleConnector(connection.credentials as OAuthCredentials, deps);
    case 'microsoft':
      return createMicrosoftConnector(connection.credentials as OAuthCredentials, deps);
  }
}
