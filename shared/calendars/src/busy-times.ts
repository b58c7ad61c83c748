import {
  type CalendarConnection,
  listCalendarConnections,
  setConnectionStatus,
} from '@sched/db/queries/calendar-connections';
import type { Logger } from '@sched/kit/logger';
import { countCalendarBusySkipped } from '@sched/kit/metrics';
import { VersionedCache } from '@sched/kit/versioned-cache';
import type { Knex } from 'knex';
import { type CalendarConnector, CredentialsRefusedError, ProviderUnavailableError } from './connector.ts';

/**
 * Busy times of connected calendars for availability (docs/calendars.md "For operators"):
 * - cached per connection for at most 60 s, keyed by the connection's `busyVersion`, which every
 *   booking change of the host bumps in its own transaction: our own writes invalidate the entry
 *   by the write itself, on every replica, with nobody having to remember to;
 * - a provider that errors or takes longer than 3 s is left out of that computation, counted in
 *   `calendar_busy_times_skipped_total`, and logged once when the outage starts and once when it ends;
 * - refused credentials mark the connection `needs_reauth` (then it is not asked again until reconnected).
 * A host's connections (with their calendars and busy versions) are kept in memory under the
 * host's `calendarVersion` (users.calendar_version, read with the host's profile, which a trigger
 * moves on at every write to their connections and calendars): a cached slots request asks the
 * database nothing for calendars. Without a version (other callers), they are read every time.
 */

export const BUSY_CACHE_TTL_MS = 60_000;
export const PROVIDER_TIMEOUT_MS = 3000;
const CACHE_MAX_ENTRIES = 5000;
/** Safety net only: a version change is what invalidates a host's connections. */
const CONNECTIONS_MAX_AGE_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

export interface HostBusyInterval {
  start: number;
  end: number;
  connectionId: number;
}

export interface BusyHost {
  id: number;
  timeZone: string;
  /** users.calendar_version as read with the host; when given, the host's connections may come from memory. */
  calendarVersion?: number | undefined;
}

export interface BusyTimesDeps {
  knex: Knex;
  logger: Logger;
  connectorOf(connection: CalendarConnection): CalendarConnector;
  /** Injected by tests; Date.now otherwise. */
  now?: () => number;
}

export class BusyTimes {
  readonly #deps: BusyTimesDeps;
  readonly #cache = new Map<string, { at: number; intervals: HostBusyInterval[] }>();
  readonly #connections = new VersionedCache<CalendarConnection[]>({
    max: CACHE_MAX_ENTRIES,
    maxAgeMs: CONNECTIONS_MAX_AGE_MS,
  });
  /** Connections whose provider is failing now (id -> since), so an outage is logged once. */
  readonly #down = new Map<number, number>();

  constructor(deps: BusyTimesDeps) {
    this.#deps = deps;
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  /** Busy intervals of every checked calendar of each host that overlap [from, to), by host id. */
  async ofHosts(
    hosts: readonly BusyHost[],
    from: number,
    to: number,
  ): Promise<Map<number, HostBusyInterval[]>> {
    const byHost = new Map<number, HostBusyInterval[]>(hosts.map((host) => [host.id, []]));
    if (hosts.length === 0 || to <= from) return byHost;
    const zones = new Map(hosts.map((host) => [host.id, host.timeZone]));
    const connections = await this.#connectionsOf(hosts);
    const reads = connections
      .filter((connection) => connection.status === 'active')
      .map(async (connection) => {
        const intervals = await this.#ofConnection(
          connection,
          zones.get(connection.userId) ?? 'UTC',
          from,
          to,
        );
        byHost
          .get(connection.userId)
          ?.push(...intervals.filter((interval) => interval.start < to && interval.end > from));
      });
    await Promise.all(reads);
    return byHost;
  }

  /** The hosts' connections: from memory for hosts whose calendarVersion matches, else one query. */
  async #connectionsOf(hosts: readonly BusyHost[]): Promise<CalendarConnection[]> {
    const known: CalendarConnection[] = [];
    const missing: BusyHost[] = [];
    for (const host of hosts) {
      const cached =
        host.calendarVersion === undefined
          ? undefined
          : this.#connections.get(String(host.id), [host.calendarVersion]);
      if (cached) known.push(...cached);
      else missing.push(host);
    }
    if (missing.length === 0) return known;
    const loaded = await listCalendarConnections(
      this.#deps.knex,
      missing.map((host) => host.id),
    );
    // Tagged with the version read before the load: a write in between leaves a newer list under
    // an older version, which the next version read replaces; never an older list under a newer one.
    for (const host of missing) {
      if (host.calendarVersion === undefined) continue;
      const own = loaded.filter((connection) => connection.userId === host.id);
      this.#connections.set(String(host.id), own, [host.calendarVersion]);
    }
    return [...known, ...loaded];
  }

  async #ofConnection(
    connection: CalendarConnection,
    timeZone: string,
    from: number,
    to: number,
  ): Promise<HostBusyInterval[]> {
    const calendarIds = connection.calendars
      .filter((calendar) => calendar.checkForConflicts)
      .map((calendar) => calendar.externalId);
    if (calendarIds.length === 0) return [];
    // Whole UTC days around the range, so requests whose `from` is "now" share an entry, and one
    // more day on each side: servers match all-day and floating events in UTC (CalDAV) or in the
    // zone they were made in (Graph), while they block the day in the host's zone, up to 14 h
    // away. Without it a booking late in a host's day missed that day's all-day event.
    const start = Math.floor(from / DAY_MS) * DAY_MS - DAY_MS;
    const end = Math.ceil(to / DAY_MS) * DAY_MS + DAY_MS;
    const key = [connection.id, connection.busyVersion, timeZone, start, end, calendarIds.join('\n')].join(
      '|',
    );
    const now = this.#now();
    const cached = this.#cache.get(key);
    if (cached && now - cached.at < BUSY_CACHE_TTL_MS) return cached.intervals;
    try {
      const busy = await withTimeout(
        this.#deps
          .connectorOf(connection)
          .busyTimes(calendarIds, { start: new Date(start), end: new Date(end) }, timeZone),
        PROVIDER_TIMEOUT_MS,
      );
      const intervals = busy.map((interval) => ({
        start: interval.start.getTime(),
        end: interval.end.getTime(),
        connectionId: connection.id,
      }));
      this.#remember(key, { at: now, intervals });
      this.#recovered(connection);
      return intervals;
    } catch (error) {
      await this.#failed(connection, error);
      return [];
    }
  }

  #remember(key: string, entry: { at: number; intervals: HostBusyInterval[] }): void {
    if (this.#cache.size >= CACHE_MAX_ENTRIES) {
      // Oldest first (a Map iterates in insertion order).
      for (const old of this.#cache.keys()) {
        this.#cache.delete(old);
        if (this.#cache.size < CACHE_MAX_ENTRIES * 0.9) break;
      }
    }
    this.#cache.set(key, entry);
  }

  async #failed(connection: CalendarConnection, error: unknown): Promise<void> {
    countCalendarBusySkipped(connection.provider);
    if (error instanceof CredentialsRefusedError) {
      await setConnectionStatus(this.#deps.knex, connection.id, 'needs_reauth');
      this.#deps.logger.warn(
        { connectionId: connection.id, provider: connection.provider },
        'calendar credentials refused: connection needs to be reconnected',
      );
      return;
    }
    if (this.#down.has(connection.id)) return;
    this.#down.set(connection.id, this.#now());
    this.#deps.logger.warn(
      {
        connectionId: connection.id,
        provider: connection.provider,
        reason: error instanceof Error ? error.message : String(error),
      },
      'calendar provider unavailable: its busy times are left out until it answers again',
    );
  }

  #recovered(connection: CalendarConnection): void {
    const since = this.#down.get(connection.id);
    if (since === undefined) return;
    this.#down.delete(connection.id);
    this.#deps.logger.warn(
      { connectionId: connection.id, provider: connection.provider, downForMs: this.#now() - since },
      'calendar provider answering again',
    );
  }
}

/** The promise, or ProviderUnavailableError after `ms` (the slow provider is not waited on). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderUnavailableError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Sorts and joins overlapping intervals of the same connection (the API's merged list). */
export function mergeByConnection(intervals: readonly HostBusyInterval[]): HostBusyInterval[] {
  const sorted = [...intervals].sort((a, b) => a.connectionId - b.connectionId || a.start - b.start);
  const merged: HostBusyInterval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.connectionId === interval.connectionId && interval.start <= last.end) {
      last.end = Math.max(last.end, interval.end);
    } else merged.push({ ...interval });
  }
  return merged.sort((a, b) => a.start - b.start || a.connectionId - b.connectionId);
}
