import type { Knex } from 'knex';
import { RecordNotFoundError, RecordStateError } from '../errors.ts';

/**
 * Calendar connections and their calendars. Credentials are stored sealed (`credentialsSealed`,
 * sealed and opened by @sched/calendars): this module never sees them in clear.
 */

export type CalendarProviderName = 'caldav' | 'google' | 'microsoft';
export type ConnectionStatus = 'active' | 'needs_reauth';

export interface ConnectedCalendar {
  id: number;
  connectionId: number;
  externalId: string;
  name: string;
  readOnly: boolean;
  primary: boolean;
  checkForConflicts: boolean;
  isDestination: boolean;
}

export interface CalendarConnection {
  id: number;
  userId: number;
  provider: CalendarProviderName;
  account: string;
  /** CalDAV: the origin of the server URL ('' for Google / Microsoft, and CalDAV saved before 0020). */
  server: string;
  credentialsSealed: string;
  status: ConnectionStatus;
  lastSyncError: { at: Date; message: string } | null;
  busyVersion: number;
  calendars: ConnectedCalendar[];
}

interface ConnectionRow {
  id: number | string;
  user_id: number | string;
  provider: string;
  account: string;
  server: string;
  credentials_sealed: string;
  status: string;
  last_sync_error_at: Date | null;
  last_sync_error: string | null;
  busy_version: number | string;
}

interface CalendarRow {
  id: number | string;
  connection_id: number | string;
  external_id: string;
  name: string;
  read_only: boolean;
  is_primary: boolean;
  check_for_conflicts: boolean;
  is_destination: boolean;
}

const CONNECTION_COLUMNS = [
  'id',
  'user_id',
  'provider',
  'account',
  'server',
  'credentials_sealed',
  'status',
  'last_sync_error_at',
  'last_sync_error',
  'busy_version',
] as const;
const CALENDAR_COLUMNS = [
  'id',
  'connection_id',
  'external_id',
  'name',
  'read_only',
  'is_primary',
  'check_for_conflicts',
  'is_destination',
] as const;

const mapCalendar = (row: CalendarRow): ConnectedCalendar => ({
  id: Number(row.id),
  connectionId: Number(row.connection_id),
  externalId: row.external_id,
  name: row.name,
  readOnly: row.read_only,
  primary: row.is_primary,
  checkForConflicts: row.check_for_conflicts,
  isDestination: row.is_destination,
});

function mapConnection(row: ConnectionRow, calendars: ConnectedCalendar[]): CalendarConnection {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    provider: row.provider as CalendarProviderName,
    account: row.account,
    server: row.server,
    credentialsSealed: row.credentials_sealed,
    status: row.status as ConnectionStatus,
    lastSyncError:
      row.last_sync_error_at && row.last_sync_error !== null
        ? { at: row.last_sync_error_at, message: row.last_sync_error }
        : null,
    busyVersion: Number(row.busy_version),
    calendars: calendars.filter((calendar) => calendar.connectionId === Number(row.id)),
  };
}

async function withCalendars(knex: Knex, rows: ConnectionRow[]): Promise<CalendarConnection[]> {
  if (rows.length === 0) return [];
  const calendarRows = (await knex('connected_calendars')
    .whereIn(
      'connection_id',
      rows.map((row) => row.id),
    )
    .orderBy('id')
    .select(CALENDAR_COLUMNS)) as CalendarRow[];
  const calendars = calendarRows.map(mapCalendar);
  return rows.map((row) => mapConnection(row, calendars));
}

/**
 * Every connection of the given users, oldest first, with their calendars: one statement (a left
 * join), since availability asks for it on every slots request and booking.
 */
export async function listCalendarConnections(
  knex: Knex,
  userIds: readonly number[],
): Promise<CalendarConnection[]> {
  if (userIds.length === 0) return [];
  const rows = (await knex('calendar_connections as c')
    .leftJoin('connected_calendars as k', 'k.connection_id', 'c.id')
    .whereIn('c.user_id', userIds)
    .orderBy([
      { column: 'c.id', order: 'asc' },
      { column: 'k.id', order: 'asc' },
    ])
    .select([
      ...CONNECTION_COLUMNS.map((column) => `c.${column}`),
      ...CALENDAR_COLUMNS.map((column) => `k.${column} as k_${column}`),
    ])) as Array<
    ConnectionRow & { [K in (typeof CALENDAR_COLUMNS)[number] as `k_${K}`]: CalendarRow[K] | null }
  >;
  const connections = new Map<number, ConnectionRow>();
  const calendars: ConnectedCalendar[] = [];
  for (const row of rows) {
    connections.set(Number(row.id), row);
    if (row.k_id === null) continue;
    calendars.push(
      mapCalendar({
        id: row.k_id,
        connection_id: row.k_connection_id!,
        external_id: row.k_external_id!,
        name: row.k_name!,
        read_only: row.k_read_only!,
        is_primary: row.k_is_primary!,
        check_for_conflicts: row.k_check_for_conflicts!,
        is_destination: row.k_is_destination!,
      }),
    );
  }
  return [...connections.values()].map((row) => mapConnection(row, calendars));
}

/** The user's connection `id`; RecordNotFoundError when it is not theirs (or does not exist). */
export async function getCalendarConnection(
  knex: Knex,
  userId: number,
  id: number,
): Promise<CalendarConnection> {
  const row = (await knex('calendar_connections').where({ id, user_id: userId }).first(CONNECTION_COLUMNS)) as
    | ConnectionRow
    | undefined;
  if (!row) throw new RecordNotFoundError('calendarConnection');
  return (await withCalendars(knex, [row]))[0]!;
}

/** A connection by id alone (the write queue, which acts for the system). */
export async function findCalendarConnectionById(knex: Knex, id: number): Promise<CalendarConnection | null> {
  const row = (await knex('calendar_connections').where({ id }).first(CONNECTION_COLUMNS)) as
    | ConnectionRow
    | undefined;
  return row ? ((await withCalendars(knex, [row]))[0] ?? null) : null;
}

export interface RemoteCalendarInput {
  externalId: string;
  name: string;
  readOnly: boolean;
  primary: boolean;
  /** The account's own calendar; new ones are checked for conflicts when owned (default true). */
  owned?: boolean;
}

/**
 * Saves a verified connection: a new one, or (same user, provider, account and server) the existing one
 * with fresh credentials, status active, and its calendar list brought up to date (the user's
 * choices kept for calendars still there). New calendars the account owns are checked for
 * conflicts (not those shared with it or subscribed to); when the user
 * has no destination yet, the primary (or first writable) calendar becomes it.
 */
export async function saveCalendarConnection(
  knex: Knex,
  input: {
    userId: number;
    provider: CalendarProviderName;
    account: string;
    /** CalDAV: the server's origin (the same user name on another server is another account). */
    server?: string;
    credentialsSealed: string;
    calendars: readonly RemoteCalendarInput[];
  },
): Promise<CalendarConnection> {
  return knex.transaction(async (trx) => {
    const server = input.server ?? '';
    if (server !== '') {
      // A connection saved before servers were told apart (migration 0020) is this one's own
      // account when nothing else claims the server: it is refreshed rather than doubled.
      await trx('calendar_connections')
        .where({ user_id: input.userId, provider: input.provider, account: input.account, server: '' })
        .whereNotExists(
          trx('calendar_connections')
            .where({ user_id: input.userId, provider: input.provider, account: input.account, server })
            .select(trx.raw('1')),
        )
        .update({ server });
    }
    const [row] = (await trx('calendar_connections')
      .insert({
        user_id: input.userId,
        provider: input.provider,
        account: input.account,
        server,
        credentials_sealed: input.credentialsSealed,
      })
      .onConflict(['user_id', 'provider', 'account', 'server'])
      .merge({
        credentials_sealed: input.credentialsSealed,
        status: 'active',
        updated_at: trx.fn.now(),
      })
      .returning(['id'])) as Array<{ id: number | string }>;
    const connectionId = Number(row!.id);
    const externalIds = input.calendars.map((calendar) => calendar.externalId);
    await trx('connected_calendars')
      .where({ connection_id: connectionId })
      .whereNotIn('external_id', externalIds)
      .delete();
    for (const calendar of input.calendars) {
      await trx('connected_calendars')
        .insert({
          connection_id: connectionId,
          user_id: input.userId,
          external_id: calendar.externalId,
          name: calendar.name,
          read_only: calendar.readOnly,
          is_primary: calendar.primary,
          check_for_conflicts: calendar.owned ?? true,
        })
        // The user's choices (checked, destination) stay as they were for calendars already there.
        .onConflict(['connection_id', 'external_id'])
        .merge({ name: calendar.name, read_only: calendar.readOnly, is_primary: calendar.primary });
    }
    // A calendar that became read-only cannot stay the destination.
    await trx('connected_calendars')
      .where({ connection_id: connectionId, read_only: true })
      .update({ is_destination: false });
    const hasDestination = await trx('connected_calendars')
      .where({ user_id: input.userId, is_destination: true })
      .first('id');
    if (!hasDestination) await makeDefaultDestination(trx, input.userId, connectionId);
    return getCalendarConnection(trx, input.userId, connectionId);
  });
}

/**
 * The default destination: the primary, or else first writable, calendar of the given connection
 * (or of the user's oldest connection that has a writable one). Nothing when there is none.
 */
async function makeDefaultDestination(trx: Knex, userId: number, connectionId?: number): Promise<void> {
  const candidate = (await trx('connected_calendars')
    .where({ user_id: userId, read_only: false })
    .modify((query) => {
      if (connectionId !== undefined) query.where({ connection_id: connectionId });
    })
    .orderBy([
      { column: 'connection_id', order: 'asc' },
      { column: 'is_primary', order: 'desc' },
      { column: 'id', order: 'asc' },
    ])
    .first('id')) as { id: number | string } | undefined;
  if (candidate)
    await trx('connected_calendars').where({ id: candidate.id }).update({ is_destination: true });
}

export interface CalendarChoice {
  id: number;
  checkForConflicts?: boolean | undefined;
  isDestination?: boolean | undefined;
}

/**
 * Applies the user's choices to calendars of one connection. One destination at most across all
 * of the user's connections: choosing one clears the others. RecordNotFoundError for a calendar
 * of another connection; RecordStateError when a read-only calendar is made the destination.
 */
export async function updateCalendarChoices(
  knex: Knex,
  userId: number,
  connectionId: number,
  choices: readonly CalendarChoice[],
): Promise<CalendarConnection> {
  return knex.transaction(async (trx) => {
    // One choice of destination per user at a time: a concurrent one cleared its own view of the
    // destinations, not ours, and the unique index would refuse the second (a 500).
    await trx('users').where({ id: userId }).forUpdate().first('id');
    const connection = await getCalendarConnection(trx, userId, connectionId);
    const byId = new Map(connection.calendars.map((calendar) => [calendar.id, calendar]));
    for (const choice of choices) {
      const calendar = byId.get(choice.id);
      if (!calendar) throw new RecordNotFoundError('calendar');
      if (choice.isDestination && calendar.readOnly) {
        throw new RecordStateError('calendar', 'readOnly', 'A read-only calendar cannot be the destination');
      }
    }
    // Clear first, set after: the partial unique index never sees two destinations.
    const newDestination = choices.find((choice) => choice.isDestination === true);
    if (newDestination) {
      await trx('connected_calendars')
        .where({ user_id: userId, is_destination: true })
        .update({ is_destination: false });
    }
    for (const choice of choices) {
      const update: Record<string, boolean> = {};
      if (choice.checkForConflicts !== undefined) update.check_for_conflicts = choice.checkForConflicts;
      if (choice.isDestination === false) update.is_destination = false;
      if (Object.keys(update).length > 0)
        await trx('connected_calendars').where({ id: choice.id }).update(update);
    }
    if (newDestination) {
      await trx('connected_calendars').where({ id: newDestination.id }).update({ is_destination: true });
    }
    return getCalendarConnection(trx, userId, connectionId);
  });
}

/**
 * Deletes the connection with its credentials and calendars; RecordNotFoundError when not the
 * user's. When it held the destination, the default of the connections left takes over (new
 * bookings keep landing in a calendar, as after connecting).
 */
export async function deleteCalendarConnection(knex: Knex, userId: number, id: number): Promise<void> {
  await knex.transaction(async (trx) => {
    // Taken in turn with choices of destination (updateCalendarChoices locks the same row).
    await trx('users').where({ id: userId }).forUpdate().first('id');
    const heldDestination = await trx('connected_calendars')
      .where({ connection_id: id, user_id: userId, is_destination: true })
      .first('id');
    const deleted = await trx('calendar_connections').where({ id, user_id: userId }).delete();
    if (deleted === 0) throw new RecordNotFoundError('calendarConnection');
    if (heldDestination) await makeDefaultDestination(trx, userId);
  });
}

export async function setConnectionStatus(knex: Knex, id: number, status: ConnectionStatus): Promise<void> {
  await knex('calendar_connections').where({ id }).update({ status, updated_at: knex.fn.now() });
}

/** Stores refreshed credentials (OAuth connectors after a token refresh). */
export async function updateConnectionCredentials(
  knex: Knex,
  id: number,
  credentialsSealed: string,
): Promise<void> {
  await knex('calendar_connections')
    .where({ id })
    .update({ credentials_sealed: credentialsSealed, updated_at: knex.fn.now() });
}

/** A calendar write failed (message shown to the user) or, with null, a later one succeeded. */
export async function setLastSyncError(knex: Knex, id: number, message: string | null): Promise<void> {
  await knex('calendar_connections')
    .where({ id })
    .update(
      message === null
        ? { last_sync_error: null, last_sync_error_at: null }
        : { last_sync_error: message.slice(0, 500), last_sync_error_at: knex.fn.now() },
    );
}

/**
 * Our own booking changed the host's calendar: every cached busy-time entry of their connections
 * is stale from now on (entries are keyed by this version). Runs in the booking's transaction.
 */
export async function bumpBusyVersion(knex: Knex, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await knex('calendar_connections')
    .whereIn('user_id', userIds)
    .update({ busy_version: knex.raw('busy_version + 1') });
}
