import type { Config } from '@sched/kit/config';
import { googleProvider } from './google.ts';
import { microsoftProvider } from './microsoft.ts';
import type { OAuthCalendarProvider, OAuthProviderId } from './oauth-types.ts';

export type { OAuthCalendarProvider, OAuthConnectorDeps, OAuthProviderId } from './oauth-types.ts';

/** The OAuth providers this deployment offers: those whose client id and secret are configured. */
export function configuredOAuthProviders(config: Pick<Config, 'calendarProviders'>): OAuthCalendarProvider[] {
  const { google, microsoft } = config.calendarProviders;
  return [...(google ? [googleProvider(google)] : []), ...(microsoft ? [microsoftProvider(microsoft)] : [])];
}

export const isOAuthProviderId = (value: string): value is OAuthProviderId =>
  value === 'google' || value === 'microsoft';

/** The configured provider `id`, or undefined (not configured: not offered). */
export const oauthProviderFor = (
  config: Pick<Config, 'calendarProviders'>,
  id: string,
): OAuthCalendarProvider | undefined =>
  configuredOAuthProviders(config).find((provider) => provider.id === id);
