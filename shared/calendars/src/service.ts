import type { Config } from '@sched/kit/config';
import {
  type CalendarChoice,
  type CalendarConnection,
  deleteCalendarConnection,
  getCalendarConnection,
  listCalendarConnections,
  saveCalendarConnection,
  updateCalendarChoices,
  updateConnectionCredentials,
} from '@sched/db/queries/calendar-connections';
import { RecordNotFoundError } from '@sched/db/errors';
import type { Logger } from '@sched/kit/logger';
import { type OutboundFetch, OutboundRefusedError } from '@sched/kit/outbound';
import type { Knex } from 'knex';
import { BusyTimes, mergeByConnection } from './busy-times.ts';
import {
  type CalDavCredentials,
  type CalendarConnector,
  type CalendarProvider,
  type ConnectionCredentials,
  CredentialsRefusedError,
  type OAuthCredentials,
  type RemoteCalendar,
} from './connector.ts';
import { type CredentialsBox, EncryptionKeyMissingError } from './credentials-box.ts';
import { createCalDavConnector } from './providers/caldav.ts';
import { connectorFor } from './registry.ts';

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

/** What a CalDAV Reconnect form is filled in with: never the password. */
export interface CalDavReconnectValues {
  serverUrl: string;
  username: string;
}

export interface CalendarSelectionChange {
  id: number;
  checkForConflicts?: boolean | undefined;
  isDestination?: boolean | undefined;
}

/** The CalDAV URL is not one we may fetch (scheme or address rule of the outbound module). */
export class CalendarAddressRefusedError extends Error {
  override name = 'CalendarAddressRefusedError';
}

export function presentConnection(connection: CalendarConnection): ConnectionView {
  return {
    id: connection.id,
    provider: connection.provider,
    account: connection.account,
    status: connection.status,
    lastSyncError: connection.lastSyncError
      ? { at: connection.lastSyncError.at.toISOString(), message: connection.lastSyncError.message }
      : null,
    calendars: connection.calendars.map((calendar) => ({
      id: calendar.id,
      name: calendar.name,
      readOnly: calendar.readOnly,
      checkForConflicts: calendar.checkForConflicts,
      isDestination: calendar.isDestination,
    })),
  };
}

export interface CalendarServiceDeps {
  knex: Knex;
  logger: Logger;
  box: CredentialsBox;
  /** The outbound fetch for calendar providers (address rule, caps). */
  fetch: OutboundFetch;
  /** Google / Microsoft client and endpoints (config.calendarProviders). */
  providers: Config['calendarProviders'];
}

/**
 * The one service behind the calendar API routes, the settings page and the onboarding step
 * (docs/calendars.md), plus what availability and the write queue need: busy times and connectors.
 */
export interface CalendarService {
  /** Discovers and verifies a CalDAV account, then saves it (or refreshes it when already connected). */
  connectCalDav(userId: number, input: CalDavConnectInput): Promise<ConnectionView>;
  /** Saves (or re-authorizes) a Google / Microsoft connection after the OAuth callback. */
  saveOAuthConnection(
    userId: number,
    provider: Exclude<CalendarProvider, 'caldav'>,
    account: string,
    credentials: OAuthCredentials,
  ): Promise<ConnectionView>;
  listConnections(userId: number): Promise<ConnectionView[]>;
  /**
   * The server URL and username of one of the user's own CalDAV connections, for the pages'
   * Reconnect (the API's view of a connection never carries the server). Null when the connection
   * is not the user's or not CalDAV.
   */
  calDavReconnectValues(userId: number, connectionId: number): Promise<CalDavReconnectValues | null>;
  /** One destination at most across all connections of the user. */
  updateSelection(
    userId: number,
    connectionId: number,
    calendars: CalendarSelectionChange[],
  ): Promise<ConnectionView>;
  /** Revokes where the provider offers it, then deletes the connection and its credentials. */
  disconnect(userId: number, connectionId: number): Promise<void>;
  /**
   * The provider revocations of every connection of the user, made ready while the credentials
   * are still stored: account deletion runs the returned function once its rows are gone (the
   * credentials go with them). Best effort, like `disconnect`'s: failures are logged.
   */
  prepareRevocations(userId: number): Promise<() => Promise<void>>;
  /** Busy intervals of the user's checked calendars in [from, to), merged per connection. */
  userBusyTimes(
    user: { id: number; timeZone: string },
    from: number,
    to: number,
  ): Promise<Array<{ start: number; end: number; connectionId: number }>>;
  busyTimes: BusyTimes;
  /** The connector of a stored connection (credentials opened here, refreshed ones sealed back). */
  connectorOf(connection: CalendarConnection): CalendarConnector;
}

export function createCalendarService(deps: CalendarServiceDeps): CalendarService {
  const { knex, box } = deps;

  /**
   * Credentials that no longer open (sealed under an earlier ENCRYPTION_KEY, or altered) are as
   * good as refused: the connection becomes needs_reauth and the user is asked to reconnect,
   * rather than its busy times being left out without a word. A process without the key at all
   * is the operator's to fix (EncryptionKeyMissingError passes through).
   */
  const openCredentials = (connection: CalendarConnection): ConnectionCredentials => {
    try {
      return box.open<ConnectionCredentials>(connection.credentialsSealed);
    } catch (error) {
      if (error instanceof EncryptionKeyMissingError) throw error;
      throw new CredentialsRefusedError(
        'The saved credentials can no longer be read: reconnect the calendar',
        {
          cause: error,
        },
      );
    }
  };

  const connectorOf = (connection: CalendarConnection): CalendarConnector =>
    connectorFor(
      {
        provider: connection.provider,
        credentials: openCredentials(connection),
      },
      {
        fetch: deps.fetch,
        providers: deps.providers,
        saveCredentials: (credentials) =>
          updateConnectionCredentials(knex, connection.id, box.seal(credentials)),
      },
    );

  const busyTimes = new BusyTimes({ knex, logger: deps.logger, connectorOf });

  /**
   * Revoking at the provider is a courtesy to it: our copy of the credentials goes regardless, also
   * when they cannot be used any more (ENCRYPTION_KEY changed, the provider no longer configured).
   * The connector is made at once (credentials opened now); the revocation never throws.
   */
  const revocationOf = (connection: CalendarConnection): (() => Promise<void>) => {
    const failed = (error: unknown) =>
      deps.logger.warn(
        {
          connectionId: connection.id,
          provider: connection.provider,
          reason: error instanceof Error ? error.message : String(error),
        },
        'calendar token revocation failed; the connection is deleted anyway',
      );
    let connector: CalendarConnector;
    try {
      connector = connectorOf(connection);
    } catch (error) {
      return async () => failed(error);
    }
    return async () => {
      try {
        await connector.revoke?.();
      } catch (error) {
        failed(error);
      }
    };
  };

  const save = async (
    userId: number,
    provider: CalendarProvider,
    account: string,
    credentials: ConnectionCredentials,
    calendars: RemoteCalendar[],
    server = '',
  ) =>
    presentConnection(
      await saveCalendarConnection(knex, {
        userId,
        provider,
        account,
        server,
        credentialsSealed: box.seal(credentials),
        calendars,
      }),
    );

  return {
    busyTimes,
    connectorOf,

    async connectCalDav(userId, input) {
      const credentials: CalDavCredentials = {
        serverUrl: input.serverUrl,
        username: input.username,
        password: input.password,
      };
      let found: Awaited<ReturnType<ReturnType<typeof createCalDavConnector>['discover']>>;
      try {
        found = await createCalDavConnector(credentials, { fetch: deps.fetch }).discover();
      } catch (error) {
        if (error instanceof OutboundRefusedError) throw new CalendarAddressRefusedError(error.message);
        throw error;
      }
      return save(
        userId,
        'caldav',
        input.username,
        { ...credentials, calendarHomeUrl: found.calendarHomeUrl },
        found.calendars,
        // The same user name on another server is another account; on this one, a reconnect.
        new URL(input.serverUrl).origin,
      );
    },

    async saveOAuthConnection(userId, provider, account, credentials) {
      const connector = connectorFor(
        { provider, credentials },
        { fetch: deps.fetch, providers: deps.providers, saveCredentials: async () => {} },
      );
      return save(userId, provider, account, credentials, await connector.listCalendars());
    },

    async listConnections(userId) {
      return (await listCalendarConnections(knex, [userId])).map(presentConnection);
    },

    async calDavReconnectValues(userId, connectionId) {
      let connection: CalendarConnection;
      try {
        connection = await getCalendarConnection(knex, userId, connectionId);
      } catch (error) {
        if (error instanceof RecordNotFoundError) return null;
        throw error;
      }
      if (connection.provider !== 'caldav') return null;
      // The URL as the user typed it (a path may matter to discovery); the stored column keeps only
      // its origin, which is what is left when the credentials no longer open.
      let serverUrl = connection.server;
      try {
        const credentials = box.open<ConnectionCredentials>(connection.credentialsSealed);
        if ('serverUrl' in credentials) serverUrl = credentials.serverUrl;
      } catch {
        // Sealed under another ENCRYPTION_KEY (or none set): the origin will do for a prefill.
      }
      return { serverUrl, username: connection.account };
    },

    async updateSelection(userId, connectionId, calendars) {
      const choices: CalendarChoice[] = calendars;
      return presentConnection(await updateCalendarChoices(knex, userId, connectionId, choices));
    },

    async disconnect(userId, connectionId) {
      const connection = await getCalendarConnection(knex, userId, connectionId);
      await revocationOf(connection)();
      await deleteCalendarConnection(knex, userId, connectionId);
    },

    async prepareRevocations(userId) {
      const revocations = (await listCalendarConnections(knex, [userId])).map(revocationOf);
      return async () => {
        await Promise.all(revocations.map((revoke) => revoke()));
      };
    },

    async userBusyTimes(user, from, to) {
      const byHost = await busyTimes.ofHosts([user], from, to);
      return mergeByConnection(byHost.get(user.id) ?? []).map((interval) => ({
        start: Math.max(interval.start, from),
        end: Math.min(interval.end, to),
        connectionId: interval.connectionId,
      }));
    },
  };
}
