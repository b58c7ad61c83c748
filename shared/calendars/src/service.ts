import type { CalendarProvider, OAuthCredentials } from './connector.ts';

/** A connection as the API and the settings pages show it: never any credential. */
export interface ConnectionView {
  id: number;
  provider: CalendarProvider;
  account: string;
  status: 'active' | 'needs_reauth';
  lastSyncError: { at: string; message: string } | null;
  calendars: {
    id: number;
    name: string;
    readOnly: boolean;
    checkForConflicts: boolean;
    isDestination: boolean;
  }[];
}

export interface CalDavConnectInput {
  serverUrl: string;
  username: string;
  password: string;
}

export interface CalendarSelectionChange {
  id: number;
  checkForConflicts?: boolean;
  isDestination?: boolean;
}

// The service the API routes and the settings / onboarding pages share. Bodies land in the next commit.
const pending = async (): Promise<never> => {
  throw new Error('calendar service not implemented yet');
};

/** Discovers and verifies a CalDAV account, then saves it (or refreshes its calendars if already connected). */
export const connectCalDav: (userId: number, input: CalDavConnectInput) => Promise<ConnectionView> = pending;
/** Saves (or re-authorizes) a Google / Microsoft connection after the OAuth callback. */
export const saveOAuthConnection: (
  userId: number,
  provider: Exclude<CalendarProvider, 'caldav'>,
  account: string,
  credentials: OAuthCredentials,
) => Promise<ConnectionView> = pending;
export const listConnections: (userId: number) => Promise<ConnectionView[]> = pending;
export const updateSelection: (
  userId: number,
  connectionId: number,
  calendars: CalendarSelectionChange[],
) => Promise<ConnectionView> = pending;
/** Revokes where the provider offers it, then deletes the connection and its credentials. */
export const disconnect: (userId: number, connectionId: number) => Promise<void> = pending;
