import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import type { BookingLimits } from './booking-limits.ts';
import { isUniqueViolation } from './pg-errors.ts';

/** An event type: personal (ownerId set) or team (teamId set), with its hosts and own limits. */
export interface EventType {
  id: number;
  ownerId: number | null;
  teamId: number | null;
  title: string;
  slug: string;
  lengthInMinutes: number;
  /** Limits of the event type itself (enforced on their own, beside each host's user limits). */
  bookingLimits: BookingLimits;
  /** Personal: the owner. Team: the users chosen as hosts (event_type_hosts), ascending. */
  hostUserIds: number[];
  createdAt: Date;
  updatedAt: Date;
}

interface EventTypeRow {
  id: number | string;
  owner_user_id: number | string | null;
  team_id: number | string | null;
  title: string;
  slug: string;
  length_minutes: number;
  limit_per_day: number | null;
  limit_per_week: number | null;
  limit_per_month: number | null;
  limit_per_year: number | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'owner_user_id',
  'team_id',
  'title',
  'slug',
  'length_minutes',
  'limit_per_day',
  'limit_per_week',
  'limit_per_month',
  'limit_per_year',
  'created_at',
  'updated_at',
] as const;

const numOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

function mapEventType(row: EventTypeRow, hostUserIds: number[]): EventType {
  const ownerId = numOrNull(row.owner_user_id);
  return {
    id: Number(row.id),
    ownerId,
    teamId: numOrNull(row.team_id),
    title: row.title,
    slug: row.slug,
    lengthInMinutes: Number(row.length_minutes),
    bookingLimits: {
      perDay: numOrNull(row.limit_per_day),
      perWeek: numOrNull(row.limit_per_week),
      perMonth: numOrNull(row.limit_per_month),
      perYear: numOrNull(row.limit_per_year),
    },
    hostUserIds: ownerId !== null ? [ownerId] : hostUserIds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function hostsOf(knex: Knex, eventTypeIds: readonly number[]): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>(eventTypeIds.map((id) => [id, []]));
  if (eventTypeIds.length === 0) return map;
  const rows = (await knex('event_type_hosts')
    .whereIn('event_type_id', [...eventTypeIds])
    .orderBy(['event_type_id', 'user_id'])
    .select('event_type_id', 'user_id')) as Array<{
    event_type_id: number | string;
    user_id: number | string;
  }>;
  for (const row of rows) map.get(Number(row.event_type_id))?.push(Number(row.user_id));
  return map;
}

async function withHosts(knex: Knex, rows: EventTypeRow[]): Promise<EventType[]> {
  const teamIds = rows.filter((row) => row.team_id !== null).map((row) => Number(row.id));
  const hosts = await hostsOf(knex, teamIds);
  return rows.map((row) => mapEventType(row, hosts.get(Number(row.id)) ?? []));
}

export interface NewEventType {
  title: string;
  slug: string;
  lengthInMinutes: number;
  bookingLimits?: Partial<BookingLimits> | undefined;
}

const limitColumns = (limits: Partial<BookingLimits> | undefined) => ({
  limit_per_day: limits?.perDay ?? null,
  limit_per_week: limits?.perWeek ?? null,
  limit_per_month: limits?.perMonth ?? null,
  limit_per_year: limits?.perYear ?? null,
});

function rethrowSlugConflict(error: unknown): never {
  if (isUniqueViolation(error, ['event_types_owner_slug_unique', 'event_types_team_slug_unique'])) {
    throw new DuplicateRecordError('eventType', 'slug');
  }
  throw error;
}

/** A personal event type of `ownerId`. Duplicate slug (any case): DuplicateRecordError('eventType', 'slug'). */
export async function createPersonalEventType(
  knex: Knex,
  ownerId: number,
  input: NewEventType,
): Promise<EventType> {
  try {
    const [row] = (await knex('event_types')
      .insert({
        owner_user_id: ownerId,
        title: input.title,
        slug: input.slug,
        length_minutes: input.lengthInMinutes,
        ...limitColumns(input.bookingLimits),
      })
      .returning(COLUMNS)) as EventTypeRow[];
    return mapEventType(row!, []);
  } catch (error) {
    rethrowSlugConflict(error);
  }
}

/**
 * A team event type with its hosts, in one transaction. The caller has checked that the hosts are
 * members of the team. Duplicate slug in the team (any case): DuplicateRecordError.
 */
export async function createTeamEventType(
  knex: Knex,
  teamId: number,
  input: NewEventType & { hostUserIds: readonly number[] },
): Promise<EventType> {
  try {
    return await knex.transaction(async (trx) => {
      const [row] = (await trx('event_types')
        .insert({
          team_id: teamId,
          title: input.title,
          slug: input.slug,
          length_minutes: input.lengthInMinutes,
          ...limitColumns(input.bookingLimits),
        })
        .returning(COLUMNS)) as EventTypeRow[];
      const id = Number(row!.id);
      const hosts = [...new Set(input.hostUserIds)].sort((a, b) => a - b);
      if (hosts.length > 0) {
        await trx('event_type_hosts').insert(hosts.map((userId) => ({ event_type_id: id, user_id: userId })));
      }
      return mapEventType(row!, hosts);
    });
  } catch (error) {
    rethrowSlugConflict(error);
  }
}

export async function findEventTypeById(knex: Knex, id: number): Promise<EventType | null> {
  if (!Number.isSafeInteger(id)) return null;
  const row = (await knex('event_types').where({ id }).first(COLUMNS)) as EventTypeRow | undefined;
  if (!row) return null;
  const [eventType] = await withHosts(knex, [row]);
  return eventType ?? null;
}

/** The user's personal event types, oldest first. */
export async function listPersonalEventTypes(knex: Knex, ownerId: number): Promise<EventType[]> {
  const rows = (await knex('event_types')
    .where({ owner_user_id: ownerId })
    .orderBy('id')
    .select(COLUMNS)) as EventTypeRow[];
  return withHosts(knex, rows);
}

/** The team's event types, oldest first. */
export async function listTeamEventTypes(knex: Knex, teamId: number): Promise<EventType[]> {
  const rows = (await knex('event_types')
    .where({ team_id: teamId })
    .orderBy('id')
    .select(COLUMNS)) as EventTypeRow[];
  return withHosts(knex, rows);
}

export async function teamExists(knex: Knex, teamId: number): Promise<boolean> {
  if (!Number.isSafeInteger(teamId)) return false;
  return (await knex('teams').where({ id: teamId }).first('id')) !== undefined;
}

/** Of `userIds`, those with an accepted membership of the team (ascending). */
export async function acceptedTeamMembers(
  knex: Knex,
  teamId: number,
  userIds: readonly number[],
): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = (await knex('memberships')
    .where({ team_id: teamId, accepted: true })
    .whereIn('user_id', [...userIds])
    .orderBy('user_id')
    .select('user_id')) as Array<{ user_id: number | string }>;
  return rows.map((row) => Number(row.user_id));
}

/**
 * Who can be booked for this event type now: the owner of a personal one; for a team one, the
 * hosts that are still accepted members of the team (ascending ids).
 */
export async function bookableHostIds(knex: Knex, eventType: EventType): Promise<number[]> {
  if (eventType.ownerId !== null) return [eventType.ownerId];
  if (eventType.teamId === null) return [];
  return acceptedTeamMembers(knex, eventType.teamId, eventType.hostUserIds);
}
