import type {
  CalDavCredentials,
  CalendarConnector,
  ConnectorDeps,
  ConnectorSubject,
  OAuthCredentials,
} from './connector.ts';
import { createCalDavConnector } from './providers/caldav.ts';
import { createGoogleConnector } from './providers/google.ts';
import { createMicrosoftConnector } from './providers/microsoft.ts';

export type { ConnectorDeps, ConnectorSubject } from './connector.ts';

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
