import { hashPassword, verifyPassword } from '@sched/kit/passwords';
import { WEEKDAY_NAMES, type WeekdayName } from '@sched/policy/booking-periods';
import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import { bumpAfterWrite, transactionWithBumps, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { isUniqueViolation } from './pg-errors.ts';

/** The users.week_start values: the week-day names of `@sched/policy/booking-periods`. */
export const WEEKDAYS = WEEKDAY_NAMES;
export type Weekday = WeekdayName;

export const ONBOARDING_STEPS = ['profile', 'calendar', 'complete'] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

export type TimeFormat = 12 | 24;

/** A user as the services see it. The password hash never leaves this module. */
export interface User {
  id: number;
  email: string;
  username: string | null;
  name: string | null;
  emailVerifiedAt: Date | null;
  timeZone: string;
  weekStart: Weekday;
  locale: string;
  timeFormat: TimeFormat | null;
  bio: string | null;
  avatarUrl: string | null;
  metadata: Record<string, unknown>;
  isServiceAdmin: boolean;
  onboardingStep: OnboardingStep;
  calendarProvider: string | null;
  /** Set for managed users of the deprecated family: the OAuth client that owns them. */
  managedByClientId: string | null;
  defaultScheduleId: number | null;
  /**
   * Moved on by every write of the password: a browser session remembers the value it was signed
   * in with and counts only while it is still this (sessions signed in with an old password end).
   */
  credentialEpoch: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column a `User` is built from (password_hash is deliberately absent). */
export const USER_COLUMNS = [
  'id',
  'email',
  'username',
  'name',
  'email_verified_at',
  'time_zone',
  'week_start',
  'locale',
  'time_format',
  'bio',
  'avatar_url',
  'metadata',
  'is_service_admin',
  'onboarding_step',
  'calendar_provider',
  'managed_by_client_id',
  'default_schedule_id',
  'credential_epoch',
  'created_at',
  'updated_at',
] as const;

/** USER_COLUMNS qualified by a table alias, for joins (`userColumns('u')`). */
export const userColumns = (alias: string): string[] => USER_COLUMNS.map((column) => `${alias}.${column}`);

export interface UserRow {
  id: number | string;
  email: string;
  username: string | null;
  name: string | null;
  email_verified_at: Date | null;
  time_zone: string;
  week_start: string;
  locale: string;
  time_format: number | null;
  bio: string | null;
  avatar_url: string | null;
  metadata: Record<string, unknown> | string | null;
  is_service_admin: boolean;
  onboarding_step: string;
  calendar_provider: string | null;
  managed_by_client_id: string | null;
  default_schedule_id: number | string | null;
  credential_epoch: number | string;
  created_at: Date;
  updated_at: Date;
}

const toNumberOrNull = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

export function mapUser(row: UserRow): User {
  const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
  return {
    id: Number(row.id),
    email: row.email,
    username: row.username,
    name: row.name,
    emailVerifiedAt: row.email_verified_at,
    timeZone: row.time_zone,
    weekStart: row.week_start as Weekday,
    locale: row.locale,
    timeFormat: row.time_format === null ? null : (row.time_format as TimeFormat),
    bio: row.bio,
    avatarUrl: row.avatar_url,
    metadata: (metadata ?? {}) as Record<string, unknown>,
    isServiceAdmin: row.is_service_admin,
    onboardingStep: row.onboarding_step as OnboardingStep,
    calendarProvider: row.calendar_provider,
    managedByClientId: row.managed_by_client_id,
    defaultScheduleId: toNumberOrNull(row.default_schedule_id),
    credentialEpoch: Number(row.credential_epoch),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const EMAIL_CONSTRAINTS = ['users_email_lower_unique', 'users_managed_email_lower_unique'];
const USERNAME_CONSTRAINT = 'users_username_lower_unique';

/** The one report of an e-mail in use, whoever uses it (regular or managed user, any case). */
export const emailTakenError = (): DuplicateRecordError => new DuplicateRecordError('user', 'email');

/** Unique violations on users become DuplicateRecordError naming the field; anything else is rethrown. */
function rethrowUserConflict(error: unknown): never {
  if (isUniqueViolation(error, EMAIL_CONSTRAINTS)) throw emailTakenError();
  if (isUniqueViolation(error, USERNAME_CONSTRAINT)) throw new DuplicateRecordError('user', 'username');
  throw error;
}

export const DEFAULT_SCHEDULE_NAME = 'Working hours';
/** The default schedule of every new user: Monday to Friday (ISO 1-5), 09:00-17:00 in their zone. */
export const DEFAULT_AVAILABILITY = {
  weekdays: [1, 2, 3, 4, 5],
  startTime: '09:00',
  endTime: '17:00',
} as const;

export interface NewUser {
  email: string;
  /** Plain text; hashed here. Omit (or null) for accounts without a password (invited, managed). */
  password?: string | null;
  username?: string | null;
  name?: string | null;
  timeZone?: string;
  weekStart?: Weekday;
  locale?: string;
  timeFormat?: TimeFormat | null;
  bio?: string | null;
  avatarUrl?: string | null;
  metadata?: Record<string, unknown>;
  isServiceAdmin?: boolean;
  emailVerifiedAt?: Date | null;
  onboardingStep?: OnboardingStep;
  calendarProvider?: string | null;
  managedByClientId?: string | null;
}

/**
 * Creates a user and their default schedule (DEFAULT_AVAILABILITY in the user's time zone) in one
 * transaction (a savepoint when `knex` is already a transaction). Duplicate e-mail (any case) or
 * username: DuplicateRecordError('user', 'email' | 'username').
 */
export async function createUser(knex: Knex, input: NewUser): Promise<User> {
  // Hash before opening the transaction: scrypt takes tens of milliseconds.
  const passwordHash = input.password == null ? null : await hashPassword(input.password);
  const timeZone = input.timeZone ?? 'UTC';
  try {
    return await knex.transaction(async (trx) => {
      const [created] = (await trx('users')
        .insert({
          email: input.email.trim(),
          username: input.username ?? null,
          name: input.name ?? null,
          password_hash: passwordHash,
          email_verified_at: input.emailVerifiedAt ?? null,
          time_zone: timeZone,
          week_start: input.weekStart ?? 'Monday',
          locale: input.locale ?? 'en',
          time_format: input.timeFormat ?? null,
          bio: input.bio ?? null,
          avatar_url: input.avatarUrl ?? null,
          metadata: JSON.stringify(input.metadata ?? {}),
          is_service_admin: input.isServiceAdmin ?? false,
          onboarding_step: input.onboardingStep ?? 'profile',
          calendar_provider: input.calendarProvider ?? null,
          managed_by_client_id: input.managedByClientId ?? null,
        })
        .returning('id')) as Array<{ id: number | string }>;
      const userId = Number(created!.id);
      const [schedule] = (await trx('schedules')
        .insert({ user_id: userId, name: DEFAULT_SCHEDULE_NAME, time_zone: timeZone })
        .returning('id')) as Array<{ id: number | string }>;
      const scheduleId = Number(schedule!.id);
      await trx('schedule_availability').insert(
        DEFAULT_AVAILABILITY.weekdays.map((weekday) => ({
          schedule_id: scheduleId,
          weekday,
          start_time: DEFAULT_AVAILABILITY.startTime,
          end_time: DEFAULT_AVAILABILITY.endTime,
        })),
      );
      const [row] = (await trx('users')
        .where({ id: userId })
        .update({ default_schedule_id: scheduleId })
        .returning(USER_COLUMNS)) as UserRow[];
      return mapUser(row!);
    });
  } catch (error) {
    rethrowUserConflict(error);
  }
}

export async function findUserById(knex: Knex, id: number): Promise<User | null> {
  if (!Number.isSafeInteger(id)) return null;
  const row = (await knex('users').where({ id }).first(USER_COLUMNS)) as UserRow | undefined;
  return row ? mapUser(row) : null;
}

/**
 * The user when it exists and is not disabled, else null: one query (oidc-provider's account
 * lookup, which issues nothing to a disabled account).
 */
export async function findEnabledUserById(knex: Knex, id: number): Promise<User | null> {
  if (!Number.isSafeInteger(id)) return null;
  const row = (await knex('users').where({ id }).whereNull('disabled_at').first(USER_COLUMNS)) as
    | UserRow
    | undefined;
  return row ? mapUser(row) : null;
}

/**
 * The regular (not managed) user with this e-mail, compared case-insensitively. Managed users of
 * the deprecated family live in their client's own e-mail namespace and are never found here.
 */
export async function findUserByEmail(knex: Knex, email: string): Promise<User | null> {
  const row = (await knex('users')
    .whereRaw('lower(email) = lower(?)', [email.trim()])
    .whereNull('managed_by_client_id')
    .first(USER_COLUMNS)) as UserRow | undefined;
  return row ? mapUser(row) : null;
}

/** Case-insensitive. */
export async function findUserByUsername(knex: Knex, username: string): Promise<User | null> {
  const row = (await knex('users').whereRaw('lower(username) = lower(?)', [username]).first(USER_COLUMNS)) as
    | UserRow
    | undefined;
  return row ? mapUser(row) : null;
}

/**
 * Sign-in: the regular user with this e-mail when `password` matches their hash, else null.
 * Takes about as long for an unknown e-mail or a user without password as for a wrong password.
 */
export async function verifyUserPassword(knex: Knex, email: string, password: string): Promise<User | null> {
  const row = (await knex('users')
    .whereRaw('lower(email) = lower(?)', [email.trim()])
    .whereNull('managed_by_client_id')
    .first([...USER_COLUMNS, 'password_hash', 'disabled_at'])) as
    | (UserRow & { password_hash: string | null; disabled_at: Date | null })
    | undefined;
  const ok = await verifyPassword(password, row?.password_hash ?? null);
  // A disabled account gets the answer of a wrong password (after the same work).
  return ok && row && row.disabled_at === null ? mapUser(row) : null;
}

/**
 * Sets (or, with null, removes) the password, moving the credential epoch on in the same row write
 * (sessions signed in with the old password stop counting). With `audit`, the account's
 * `user.password_changed` event (never the password) is written in the same transaction. Returns
 * the user as written, whose epoch is the new password's; null when there is no such user.
 */
export async function setUserPassword(
  knex: Knex,
  userId: number,
  password: string | null,
  audit?: AuditContext,
): Promise<User | null> {
  const passwordHash = password === null ? null : await hashPassword(password);
  return knex.transaction(async (trx) => {
    const [row] = (await trx('users')
      .where({ id: userId })
      .update({ password_hash: passwordHash, ...nextCredentialEpoch(trx), updated_at: trx.fn.now() })
      .returning(USER_COLUMNS)) as UserRow[];
    if (row && audit)
      await recordAuditEvent(trx, audit, {
        action: 'user.password_changed',
        targetType: 'user',
        targetId: userId,
        after: { hasPassword: password !== null },
      });
    return row ? mapUser(row) : null;
  });
}

/** The column change that goes with every write of `password_hash`. */
export const nextCredentialEpoch = (knex: Knex) => ({
  credential_epoch: knex.raw('credential_epoch + 1'),
});

/** True when the user has a password (sign-up over an invited, password-less account, say). */
export async function userHasPassword(knex: Knex, userId: number): Promise<boolean> {
  const row = (await knex('users').where({ id: userId }).whereNotNull('password_hash').first('id')) as
    | { id: number }
    | undefined;
  return row !== undefined;
}

/** Fields updateUser may change. `undefined` (or absent) leaves a field alone; null clears it. */
export interface UserPatch {
  email?: string;
  username?: string | null;
  name?: string | null;
  emailVerifiedAt?: Date | null;
  timeZone?: string;
  weekStart?: Weekday;
  locale?: string;
  timeFormat?: TimeFormat | null;
  bio?: string | null;
  avatarUrl?: string | null;
  /** Replaces the whole object. */
  metadata?: Record<string, unknown>;
  onboardingStep?: OnboardingStep;
  calendarProvider?: string | null;
  /** Must be one of the user's own schedules (foreign key), or null. */
  defaultScheduleId?: number | null;
}

const PATCH_COLUMNS: { [K in keyof Required<UserPatch>]: string } = {
  email: 'email',
  username: 'username',
  name: 'name',
  emailVerifiedAt: 'email_verified_at',
  timeZone: 'time_zone',
  weekStart: 'week_start',
  locale: 'locale',
  timeFormat: 'time_format',
  bio: 'bio',
  avatarUrl: 'avatar_url',
  metadata: 'metadata',
  onboardingStep: 'onboarding_step',
  calendarProvider: 'calendar_provider',
  defaultScheduleId: 'default_schedule_id',
};

/**
 * Applies `patch` and returns the updated user, or null when there is no such user. Duplicate
 * e-mail or username: DuplicateRecordError('user', field). A new time zone moves the default
 * schedule with it, in the same transaction (as cal.com's PATCH /v2/me): the default working
 * hours are "09:00-17:00 in the user's zone", and left behind they would offer slots at the old
 * zone's hours.
 */
export async function updateUser(
  knex: Knex,
  versions: VersionBumper,
  id: number,
  patch: UserPatch,
): Promise<User | null> {
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(PATCH_COLUMNS) as Array<keyof UserPatch>) {
    const value = patch[key];
    if (value === undefined) continue;
    if (key === 'metadata') changes[PATCH_COLUMNS[key]] = JSON.stringify(value ?? {});
    else if (key === 'email') changes[PATCH_COLUMNS[key]] = (value as string).trim();
    else changes[PATCH_COLUMNS[key]] = value;
  }
  if (Object.keys(changes).length === 0) return findUserById(knex, id);
  changes['updated_at'] = knex.fn.now();
  const row = await transactionWithBumps(knex, versions, async (trx, bumper) => {
    const updated = await updateUserRow(trx, id, changes);
    if (!updated) return undefined;
    if (patch.timeZone !== undefined && updated.default_schedule_id !== null) {
      await trx('schedules')
        .where({ id: updated.default_schedule_id, user_id: id })
        .update({ time_zone: patch.timeZone, updated_at: trx.fn.now() });
    }
    await bumpUser(trx, bumper, id);
    return updated;
  });
  return row ? mapUser(row) : null;
}

async function updateUserRow(
  knex: Knex,
  id: number,
  changes: Record<string, unknown>,
): Promise<UserRow | undefined> {
  try {
    const [row] = (await knex('users').where({ id }).update(changes).returning(USER_COLUMNS)) as UserRow[];
    return row;
  } catch (error) {
    rethrowUserConflict(error);
  }
}

/**
 * Every write of a user row (and of the user's API keys) bumps `user:<id>` once committed: the
 * API caches the user's facts and shows their profile in cached membership reads.
 */
export const bumpUser = (knex: Knex, versions: VersionBumper, userId: number): Promise<void> =>
  bumpAfterWrite(knex, versions, [accessVersionKey.user(userId)]);

/**
 * Disables (sets `disabled_at`, keeping the first time) or enables again (clears it) an account,
 * and bumps `user:<id>`: every API process reloads the user's facts and API keys on the next
 * request and refuses them while disabled. Null when there is no such user; else whether the
 * account is disabled now and whether this call changed it. Ending the account's sessions, tokens
 * and keys is the caller's (`disableAccount` in @sched/accounts).
 * With `audit`, the `user.disabled` / `user.enabled` event is written in the same transaction (also
 * when nothing changed: the operator's action is on record); callers that write their own event
 * afterwards pass none.
 */
export async function setUserDisabled(
  knex: Knex,
  versions: VersionBumper,
  userId: number,
  disabled: boolean,
  audit?: AuditContext,
): Promise<{ disabledAt: Date | null; changed: boolean } | null> {
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const before = (await trx('users').where({ id: userId }).forUpdate().first('disabled_at')) as
      | { disabled_at: Date | null }
      | undefined;
    if (!before) return null;
    const changed = (before.disabled_at !== null) !== disabled;
    const disabledAt = changed
      ? (
          (await trx('users')
            .where({ id: userId })
            // Disabling also moves the credential epoch: a session saved by a sign-in that
            // passed just before (after the sessions were ended) is stale on its first use.
            .update({
              disabled_at: disabled ? trx.fn.now() : null,
              ...(disabled ? nextCredentialEpoch(trx) : {}),
              updated_at: trx.fn.now(),
            })
            .returning(['disabled_at'])) as Array<{ disabled_at: Date | null }>
        )[0]!.disabled_at
      : before.disabled_at;
    if (audit) {
      await recordAuditEvent(trx, audit, {
        action: disabled ? 'user.disabled' : 'user.enabled',
        targetType: 'user',
        targetId: userId,
        before: { disabled: before.disabled_at !== null },
        after: { disabled },
        details: { changed },
      });
    }
    if (changed) await bumpUser(trx, bumper, userId);
    return { disabledAt, changed };
  });
}

/** When the account was disabled; null when it is not (or there is no such user). */
export async function findUserDisabledAt(knex: Knex, userId: number): Promise<Date | null> {
  const row = (await knex('users').where({ id: userId }).first('disabled_at')) as
    | { disabled_at: Date | null }
    | undefined;
  return row?.disabled_at ?? null;
}

/** The oldest enabled service administrator's id (the owner of clients the CLI registers), or null. */
export async function findFirstServiceAdminId(knex: Knex): Promise<number | null> {
  const row = (await knex('users')
    .where({ is_service_admin: true })
    .whereNull('disabled_at')
    .whereNull('managed_by_client_id')
    .orderBy('id')
    .first('id')) as { id: number | string } | undefined;
  return row ? Number(row.id) : null;
}

/** Grants (or withdraws) service administration. False when there is no such user. */
export async function setServiceAdmin(
  knex: Knex,
  versions: VersionBumper,
  userId: number,
  isServiceAdmin = true,
): Promise<boolean> {
  const count = await knex('users')
    .where({ id: userId })
    .update({ is_service_admin: isServiceAdmin, updated_at: knex.fn.now() });
  if (count > 0) await bumpUser(knex, versions, userId);
  return count > 0;
}
