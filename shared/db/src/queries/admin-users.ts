import type { Knex } from 'knex';
import { likePattern } from './like-pattern.ts';
import { mapUser, type User, USER_COLUMNS, type UserRow, userColumns } from './users.ts';

/**
 * The admin console's reads of accounts (service administrators): search by e-mail or name, and
 * one account with its disabled state. Managed users of the deprecated family are left out (they
 * have no sign-in of their own).
 */

export interface AdminUser extends User {
  disabledAt: Date | null;
}

type AdminRow = UserRow & { disabled_at: Date | null };

const mapAdminUser = (row: AdminRow): AdminUser => ({ ...mapUser(row), disabledAt: row.disabled_at });

/** Accounts whose e-mail or name contains `q` (any case; all when empty), newest first. */
export async function searchUsers(
  knex: Knex,
  options: { q?: string; skip: number; take: number },
): Promise<AdminUser[]> {
  const query = knex('users as u')
    .select([...userColumns('u'), 'u.disabled_at'])
    .whereNull('u.managed_by_client_id');
  const q = options.q?.trim() ?? '';
  if (q !== '') {
    const pattern = likePattern(q.toLowerCase());
    query.where((where) =>
      where
        .whereRaw('lower(u.email) like ?', [pattern])
        .orWhereRaw("lower(coalesce(u.name, '')) like ?", [pattern]),
    );
  }
  const rows = (await query
    .orderBy([
      { column: 'u.created_at', order: 'desc' },
      { column: 'u.id', order: 'desc' },
    ])
    .offset(options.skip)
    .limit(options.take)) as AdminRow[];
  return rows.map(mapAdminUser);
}

/** One regular account with its disabled state; null when there is none. */
export async function findUserForAdmin(knex: Knex, userId: number): Promise<AdminUser | null> {
  const row = (await knex('users')
    .where({ id: userId })
    .whereNull('managed_by_client_id')
    .first([...USER_COLUMNS, 'disabled_at'])) as AdminRow | undefined;
  return row ? mapAdminUser(row) : null;
}
