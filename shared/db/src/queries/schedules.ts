import type { AvailabilityRule } from '@sched/policy/availability';
import type { WeekdayName } from '@sched/policy/booking-periods';
import type { Knex } from 'knex';
import { DEFAULT_SCHEDULE_NAME } from './users.ts';

/** A schedule with its weekly availability (wall clock in `timeZone`). */
export interface Schedule {
  id: number;
  userId: number;
  name: string;
  timeZone: string;
  rules: AvailabilityRule[];
}

interface AvailabilityRow {
  schedule_id: number | string;
  weekday: number;
  start_time: string;
  end_time: string;
}

const mapRule = (row: AvailabilityRow): AvailabilityRule => ({
  weekday: Number(row.weekday),
  startTime: String(row.start_time).slice(0, 5),
  endTime: String(row.end_time).slice(0, 5),
});

async function rulesOf(knex: Knex, scheduleIds: readonly number[]): Promise<Map<number, AvailabilityRule[]>> {
  const map = new Map<number, AvailabilityRule[]>(scheduleIds.map((id) => [id, []]));
  if (scheduleIds.length === 0) return map;
  const rows = (await knex('schedule_availability')
    .whereIn('schedule_id', [...scheduleIds])
    .orderBy(['schedule_id', 'weekday', 'start_time'])
    .select('schedule_id', 'weekday', 'start_time', 'end_time')) as AvailabilityRow[];
  for (const row of rows) map.get(Number(row.schedule_id))?.push(mapRule(row));
  return map;
}

/** The user's default schedule (users.default_schedule_id), or null when they have none. */
export async function getDefaultSchedule(knex: Knex, userId: number): Promise<Schedule | null> {
  const row = (await knex('users as u')
    .join('schedules as s', 's.id', 'u.default_schedule_id')
    .where('u.id', userId)
    .first('s.id', 's.user_id', 's.name', 's.time_zone')) as
    | { id: number | string; user_id: number | string; name: string; time_zone: string }
    | undefined;
  if (!row) return null;
  const id = Number(row.id);
  const rules = await rulesOf(knex, [id]);
  return {
    id,
    userId: Number(row.user_id),
    name: row.name,
    timeZone: row.time_zone,
    rules: rules.get(id) ?? [],
  };
}

/**
 * PUT /v2/me/schedule: replaces the availability of the user's default schedule (creating the
 * schedule when the user has none) and sets its time zone to `timeZone` (the user's current zone).
 * One short transaction; the user's row is locked so two concurrent PUTs cannot both create a schedule.
 */
export async function replaceDefaultAvailability(
  knex: Knex,
  userId: number,
  timeZone: string,
  rules: readonly AvailabilityRule[],
): Promise<Schedule | null> {
  const scheduleId = await knex.transaction(async (trx) => {
    const user = (await trx('users')
      .where({ id: userId })
      .forNoKeyUpdate()
      .first('id', 'default_schedule_id')) as
      | { id: number; default_schedule_id: number | string | null }
      | undefined;
    if (!user) return null;
    let id = user.default_schedule_id === null ? null : Number(user.default_schedule_id);
    if (id === null) {
      const [created] = (await trx('schedules')
        .insert({ user_id: userId, name: DEFAULT_SCHEDULE_NAME, time_zone: timeZone })
        .returning('id')) as Array<{ id: number | string }>;
      id = Number(created!.id);
      await trx('users').where({ id: userId }).update({ default_schedule_id: id, updated_at: trx.fn.now() });
    } else {
      await trx('schedules').where({ id }).update({ time_zone: timeZone, updated_at: trx.fn.now() });
      await trx('schedule_availability').where({ schedule_id: id }).delete();
    }
    if (rules.length > 0) {
      await trx('schedule_availability').insert(
        rules.map((rule) => ({
          schedule_id: id,
          weekday: rule.weekday,
          start_time: rule.startTime,
          end_time: rule.endTime,
        })),
      );
    }
    return id;
  });
  return scheduleId === null ? null : getDefaultSchedule(knex, userId);
}

/** What slot computation and booking need to know about a host. */
export interface HostProfile {
  id: number;
  name: string | null;
  email: string;
  /** The user's zone: booking-limit periods are cut here. */
  timeZone: string;
  weekStart: WeekdayName;
  /** The default schedule's zone and rules; null zone and no rules when the user has no schedule. */
  scheduleTimeZone: string | null;
  rules: AvailabilityRule[];
  /** Moves on with every write to the user's calendar connections and calendars (migration 0019). */
  calendarVersion: number;
}

/** Profiles of these users (in the order of `userIds`, unknown ids left out), two queries in all. */
export async function getHostProfiles(knex: Knex, userIds: readonly number[]): Promise<HostProfile[]> {
  if (userIds.length === 0) return [];
  const rows = (await knex('users as u')
    .leftJoin('schedules as s', 's.id', 'u.default_schedule_id')
    .whereIn('u.id', [...userIds])
    .select(
      'u.id',
      'u.name',
      'u.email',
      'u.time_zone',
      'u.week_start',
      'u.calendar_version',
      's.id as schedule_id',
      's.time_zone as schedule_time_zone',
    )) as Array<{
    id: number | string;
    name: string | null;
    email: string;
    time_zone: string;
    week_start: string;
    calendar_version: number | string;
    schedule_id: number | string | null;
    schedule_time_zone: string | null;
  }>;
  const scheduleIds = rows.filter((row) => row.schedule_id !== null).map((row) => Number(row.schedule_id));
  const rules = await rulesOf(knex, scheduleIds);
  const byId = new Map(
    rows.map((row) => [
      Number(row.id),
      {
        id: Number(row.id),
        name: row.name,
        email: row.email,
        timeZone: row.time_zone,
        weekStart: row.week_start as WeekdayName,
        scheduleTimeZone: row.schedule_time_zone,
        rules: row.schedule_id === null ? [] : (rules.get(Number(row.schedule_id)) ?? []),
        calendarVersion: Number(row.calendar_version),
      } satisfies HostProfile,
    ]),
  );
  return userIds.flatMap((id) => {
    const profile = byId.get(id);
    return profile ? [profile] : [];
  });
}
