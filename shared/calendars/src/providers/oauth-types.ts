import type { CalendarConnector, OAuthCredentials } from '../connector.ts';
import type { Fetch } from './oauth-tokens.ts';

/** A calendar provider reached through OAuth, our server being its client. */
export type OAuthProviderId = 'google' | 'microsoft';

export interface OAuthConnectorDeps {
  credentials: OAuthCredentials;
  /** The outbound module's fetch (address rule, size and time caps). */
  fetch: Fetch;
  /** Persists refreshed credentials (encrypted by the library) before they are used. */
  saveCredentials(credentials: OAuthCredentials): Promise<void>;
  now?: () => number;
}

export interface OAuthCalendarProvider {
  id: OAuthProviderId;
  /** What the connect button and the pages call it. */
  label: string;
  /** Where the browser goes to authorize us (authorization-code flow with PKCE S256). */
  authorizationUrl(params: { redirectUri: string; state: string; codeChallenge: string }): string;
  /** The callback's code for credentials (CredentialsRefusedError when the provider refuses it). */
  exchangeCode(
    fetchOut: Fetch,
    params: { code: string; codeVerifier: string; redirectUri: string },
  ): Promise<OAuthCredentials>;
  connector(deps: OAuthConnectorDeps): CalendarConnector;
}
