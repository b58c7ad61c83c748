import type { GoogleProviderConfig, MicrosoftProviderConfig } from '@sched/kit/config';
import type { OAuthCredentials } from '@sched/calendars/connector';
import { calendarFetch } from '@sched/calendars/outbound';
import type { OAuthCalendarProvider } from '@sched/calendars/providers/oauth-types';
import type { TestFn } from 'ava';
import nock from 'nock';

/**
 * Google and Microsoft as the calendar tests see them: the public endpoints (which `nock`
 * intercepts in the connector tests) or a base URL of a fake provider, and credentials in the
 * shapes the connectors store.
 */
export const GOOGLE_ORIGINS = {
  accounts: 'https://accounts.google.com',
  oauth2: 'https://oauth2.googleapis.com',
  api: 'https://www.googleapis.com',
} as const;

export const MICROSOFT_ORIGINS = {
  login: 'https://login.microsoftonline.com',
  graph: 'https://graph.microsoft.com',
} as const;

export function googleConfig(base?: string): GoogleProviderConfig {
  return {
    clientId: 'google-client-id.apps.googleusercontent.com',
    clientSecret: 'google-client-secret',
    authUrl: base ? `${base}/o/oauth2/v2/auth` : `${GOOGLE_ORIGINS.accounts}/o/oauth2/v2/auth`,
    tokenUrl: base ? `${base}/token` : `${GOOGLE_ORIGINS.oauth2}/token`,
    calendarApiUrl: base ? `${base}/calendar/v3` : `${GOOGLE_ORIGINS.api}/calendar/v3`,
    revokeUrl: base ? `${base}/revoke` : `${GOOGLE_ORIGINS.oauth2}/revoke`,
  };
}

export function microsoftConfig(base?: string): MicrosoftProviderConfig {
  return {
    clientId: '00000000-0000-0000-0000-00000000c1d0',
    clientSecret: 'microsoft-client-secret',
    authorityUrl: base ? `${base}/common` : `${MICROSOFT_ORIGINS.login}/common`,
    graphUrl: base ? `${base}/v1.0` : `${MICROSOFT_ORIGINS.graph}/v1.0`,
  };
}

/** Credentials that expire in `inSeconds` (negative: already expired). */
export const oauthCredentials = (inSeconds = 3600, suffix = '1'): OAuthCredentials => ({
  accessToken: `access-${suffix}`,
  refreshToken: `refresh-${suffix}`,
  expiresAt: new Date(Date.now() + inSeconds * 1000).toISOString(),
});

/** What the connectors handed to saveCredentials, in order. */
export function savedCredentials() {
  const saved: OAuthCredentials[] = [];
  return { saved, save: async (credentials: OAuthCredentials) => void saved.push(credentials) };
}

/** The outbound module's fetch, as in production: nock answers for the provider behind it. */
export const providerFetch = calendarFetch(false);

/** nock for a test file: no request leaves the process, and each test's interceptors are cleared. */
export function interceptProviders(test: TestFn): void {
  test.before(() => nock.disableNetConnect());
  test.afterEach.always(() => nock.cleanAll());
  test.after.always(() => nock.enableNetConnect());
}

/** The provider's connector over `providerFetch`, with the credentials it saves recorded in `store`. */
export function providerConnector(provider: OAuthCalendarProvider, credentials = oauthCredentials()) {
  const store = savedCredentials();
  return {
    store,
    calendar: provider.connector({ credentials, fetch: providerFetch, saveCredentials: store.save }),
  };
}
