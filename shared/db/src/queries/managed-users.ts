import type { Knex } from 'knex';
import { transactionWithBumps, type VersionBumper } from '../versions.ts';
import { cancelBookingsOfDeletedHosts } from './bookings.ts';
import {
  bumpUser,
  createUser,
  emailTakenError,
  mapUser,
  type TimeFormat,
  USER_COLUMNS,
  type User,
  type UserRow,
  updateUser,
  type Weekday,
} from './users.ts';

/**
 * Managed users of the deprecated family: `users` rows with `managed_by_client_id` set, e-mail
 * stored as given (trimmed). Every function is scoped to one client, so a user of another client is
 * simply not found. A managed user cannot take an e-mail another account uses, regular or managed
 * by any client, in any case: DuplicateRecordError('user', 'email'), the same one whoever holds it.
 */

export interface NewManagedUser {
  email: string;
  name?: string | null;
  timeZone?: string;
  weekStart?: Weekday;
  locale?: string;
  timeFormat?: TimeFormat | null;
  bio?: string | null;
  avatarUrl?: string | null;
  metadata?: Record<string, unknown>;
}

export type ManagedUserPatch = Partial<NewManagedUser>;

/**
 * Serialises the writes that claim `email` (any case) until the transaction ends, so two managed
 * users cannot take one address at the same time; then refuses it when another account uses it.
 */
async function claimEmail(trx: Knex.Transaction, email: string, exceptUserId: number | null): Promise<void> {
  const lowered = email.trim().toLowerCase();
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`user-email:${lowered}`]);
  const query = trx('users').whereRaw('lower(email) = lower(?)', [email.trim()]);
  if (exceptUserId !== null) query.whereNot('id', exceptUserId);
  if (await query.first('id')) throw emailTakenError();
}

/** Creates the user (with the default schedule, like every user), e-mail taken as verified. */
export async function createManagedUser(knex: Knex, clientId: string, input: NewManagedUser): Promise<User> {
  return knex.transaction(async (trx) => {
    await claimEmail(trx, input.email, null);
    return createUser(trx, {
      ...input,
      managedByClientId: clientId,
      emailVerifiedAt: new Date(),
      onboardingStep: 'complete',
    });
  });
}

export async function findManagedUser(knex: Knex, clientId: string, userId: number): Promise<User | null> {
  if (!Number.isSafeInteger(userId)) return null;
  const row = (await knex('users')
    .where({ id: userId, managed_by_client_id: clientId })
    .first(USER_COLUMNS)) as UserRow | undefined;
  return row ? mapUser(row) : null;
}

/** The client's managed users, oldest first. */
export async function listManagedUsers(
  knex: Knex,
  clientId: string,
  options: { skip: number; take: number; email?: string },
): Promise<User[]> {
  const query = knex('users').where({ managed_by_client_id: clientId });
  if (options.email !== undefined) query.whereRaw('lower(email) = lower(?)', [options.email.trim()]);
  const rows = (await query
    .orderBy('id')
    .offset(options.skip)
    .limit(options.take)
    .select(USER_COLUMNS)) as UserRow[];
  return rows.map(mapUser);
}

/** Null when the user is not one of this client's. E-mail used by another account: DuplicateRecordError. */
export async function updateManagedUser(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  userId: number,
  patch: ManagedUserPatch,
): Promise<User | null> {
  const existing = await findManagedUser(knex, clientId, userId);
  if (!existing) return null;
  if (patch.email === undefined) return updateUser(knex, versions, userId, patch);
  const email = patch.email;
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    await claimEmail(trx, email, userId);
    return updateUser(trx, bumper, userId, patch);
  });
}

/** Deletes the user if it is one of this client's; returns it as it was, or null. */
export async function deleteManagedUser(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  userId: number,
): Promise<User | null> {
  if (!Number.isSafeInteger(userId)) return null;
  await cancelBookingsOfDeletedHosts(
    knex,
    knex('users').where({ id: userId, managed_by_client_id: clientId }).select('id'),
  );
  const [row] = (await knex('users')
    .where({ id: userId, managed_by_client_id: clientId })
    .delete()
    .returning(USER_COLUMNS)) as UserRow[];
  if (!row) return null;
  await bumpUser(knex, versions, userId);
  return mapUser(row);
}
