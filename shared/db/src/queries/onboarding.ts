import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import type { VersionBumper } from '../versions.ts';
import { isUniqueViolation } from './pg-errors.ts';
import { bumpUser, mapUser, USER_COLUMNS, type User, type UserRow, type Weekday } from './users.ts';

/**
 * The onboarding steps of a user (users.onboarding_step: 'profile' -> 'calendar' -> 'complete').
 * Each step's write moves the user forward only from the step it belongs to, so a replayed or
 * out-of-order form cannot move anyone backwards or skip the profile.
 */

export interface OnboardingProfile {
  name: string;
  /** Lower-case, already validated (@sched/policy/onboarding). */
  username: string;
  /** A canonical IANA zone name. */
  timeZone: string;
  weekStart: Weekday;
}

/**
 * Saves the profile step: name, username, time zone and week start, and the time zone of the
 * user's default schedule (created in UTC at sign-up, before the user could say where they are).
 * Moves 'profile' to 'calendar'; a user already past the profile keeps their step. Null when there
 * is no such user; a username taken by someone else is DuplicateRecordError('user', 'username').
 */
export async function saveOnboardingProfile(
  knex: Knex,
  versions: VersionBumper,
  userId: number,
  profile: OnboardingProfile,
): Promise<User | null> {
  if (!Number.isSafeInteger(userId)) return null;
  let saved: User | null;
  try {
    saved = await knex.transaction(async (trx) => {
      const [row] = (await trx('users')
        .where({ id: userId })
        .update({
          name: profile.name,
          username: profile.username,
          time_zone: profile.timeZone,
          week_start: profile.weekStart,
          onboarding_step: trx.raw(
            "case when onboarding_step = 'profile' then 'calendar' else onboarding_step end",
          ),
          updated_at: trx.fn.now(),
        })
        .returning(USER_COLUMNS)) as UserRow[];
      if (!row) return null;
      const user = mapUser(row);
      if (user.defaultScheduleId !== null) {
        await trx('schedules')
          .where({ id: user.defaultScheduleId, user_id: userId })
          .update({ time_zone: profile.timeZone });
      }
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'users_username_lower_unique')) {
      throw new DuplicateRecordError('user', 'username');
    }
    throw error;
  }
  if (saved) await bumpUser(knex, versions, userId);
  return saved;
}

/**
 * Records the calendar step: the provider chosen (null when the user skipped) and 'complete'.
 * Only from 'calendar' (or again once complete, to change the choice); null when the user does not
 * exist or has not finished the profile yet.
 */
export async function saveOnboardingCalendar(
  knex: Knex,
  versions: VersionBumper,
  userId: number,
  calendarProvider: string | null,
): Promise<User | null> {
  if (!Number.isSafeInteger(userId)) return null;
  const [row] = (await knex('users')
    .where({ id: userId })
    .whereIn('onboarding_step', ['calendar', 'complete'])
    .update({ calendar_provider: calendarProvider, onboarding_step: 'complete', updated_at: knex.fn.now() })
    .returning(USER_COLUMNS)) as UserRow[];
  if (!row) return null;
  await bumpUser(knex, versions, userId);
  return mapUser(row);
}
