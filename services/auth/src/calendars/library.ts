import {
  type CalDavConnectInput,
  type CalendarSelectionChange,
  type ConnectionView,
  connectCalDav,
  disconnect,
  listConnections,
  saveOAuthConnection,
  updateSelection,
} from '@sched/calendars/service';
import type { OAuthCredentials } from '@sched/calendars/connector';
import { providerFetch } from '@sched/calendars/providers/provider-fetch';
import type { OAuthProviderId } from '@sched/calendars/providers/oauth-provider';
import type { AuthDeps } from '../deps.ts';

/**
 * The calendar library's service as the pages call it (the API routes call the same functions):
 * the settings page and the onboarding step never touch connections or credentials themselves.
 */
export interface CalendarPagesService {
  list(userId: number): Promise<ConnectionView[]>;
  connectCalDav(userId: number, input: CalDavConnectInput): Promise<ConnectionView>;
  saveOAuth(
    userId: number,
    provider: OAuthProviderId,
    account: string,
    credentials: OAuthCredentials,
  ): Promise<ConnectionView>;
  updateSelection(
    userId: number,
    connectionId: number,
    changes: CalendarSelectionChange[],
  ): Promise<ConnectionView>;
  disconnect(userId: number, connectionId: number): Promise<void>;
}

export function calendarService(_deps: AuthDeps): CalendarPagesService {
  return {
    list: (userId) => listConnections(userId),
    connectCalDav: (userId, input) => connectCalDav(userId, input),
    saveOAuth: (userId, provider, account, credentials) =>
      saveOAuthConnection(userId, provider, account, credentials),
    updateSelection: (userId, connectionId, changes) => updateSelection(userId, connectionId, changes),
    disconnect: (userId, connectionId) => disconnect(userId, connectionId),
  };
}

/** The fetch of the token exchange (the outbound module's, as every server-side request). */
export const oauthFetch = (deps: AuthDeps) =>
  providerFetch({ allowPrivateNetworks: deps.runtime.config.outboundPrivateNetworks });
