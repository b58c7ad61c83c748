import type { Knex } from 'knex';
import { transactionWithBumps, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { cancelBookingsOfDeletedHosts } from './bookings.ts';
import { clientVersionKey } from './oauth-clients.ts';

/**
 * Deleting an account. The users row goes and its foreign keys take the rest: memberships, API
 * keys, remembered consents, schedules, personal event types and the OAuth clients the user owns
 * (with the managed users of those clients) are deleted by `on delete cascade`; bookings keep their
 * row (`host_user_id` is set null, migration 0012_booking_host_set_null) after they were cancelled
 * here. The token store (OAuth tokens, browser sessions) is the caller's:
 * `@sched/clients/account-deletion`.
 */

/** An organization or team the user is the only accepted OWNER of. */
export interface SoleOwnership {
  kind: 'organization' | 'team';
  id: number;
  name: string;
}

/** What a deletion removed besides the row (for the token store and caches). */
export interface DeletedAccount {
  /** The OAuth clients that went with the user (owned by them). */
  clientIds: string[];
  /** The accounts deleted: the user, and the managed users of their clients. */
  userIds: number[];
  /** Bookings cancelled (hosted by any of `userIds`, accepted until now). */
  cancelledBookings: number;
}

export type AccountDeletion =
  | { deleted: true; account: DeletedAccount }
  | { deleted: false; soleOwnerOf: SoleOwnership[] };

export { HOST_DELETED_REASON } from './bookings.ts';

/**
 * Organizations and teams where `userId` holds an accepted OWNER membership and nobody else does
 * (sorted: organizations first, then by name). With `lock` (inside a transaction) the OWNER
 * memberships of those parents are locked, so two owners deleting themselves at once are
 * serialised: the second sees the first gone.
 */
export async function findSoleOwnerships(
  knex: Knex,
  userId: number,
  options: { lock?: boolean } = {},
): Promise<SoleOwnership[]> {
  const owned = (await knex('memberships')
    .where({ user_id: userId, role: 'OWNER', accepted: true })
    .select('organization_id', 'team_id')) as Array<{
    organization_id: number | string | null;
    team_id: number | string | null;
  }>;
  const orgIds = owned.flatMap((row) => (row.organization_id === null ? [] : [Number(row.organization_id)]));
  const teamIds = owned.flatMap((row) => (row.team_id === null ? [] : [Number(row.team_id)]));
  if (orgIds.length === 0 && teamIds.length === 0) return [];
  const owners = knex('memberships')
    .where({ role: 'OWNER', accepted: true })
    .where((query) => {
      if (orgIds.length > 0) query.orWhereIn('organization_id', orgIds);
      if (teamIds.length > 0) query.orWhereIn('team_id', teamIds);
    })
    .select('id', 'user_id', 'organization_id', 'team_id')
    .orderBy('id');
  const rows = (await (options.lock ? owners.forUpdate() : owners)) as Array<{
    user_id: number | string;
    organization_id: number | string | null;
    team_id: number | string | null;
  }>;
  const others = new Set<string>();
  for (const row of rows) {
    if (Number(row.user_id) === userId) continue;
    others.add(row.organization_id !== null ? `o${row.organization_id}` : `t${row.team_id}`);
  }
  const soleOrgs = orgIds.filter((id) => !others.has(`o${id}`));
  const soleTeams = teamIds.filter((id) => !others.has(`t${id}`));
  const [orgs, teams] = await Promise.all([
    soleOrgs.length > 0 ? knex('organizations').whereIn('id', soleOrgs).select('id', 'name') : [],
    soleTeams.length > 0 ? knex('teams').whereIn('id', soleTeams).select('id', 'name') : [],
  ]);
  const byName = (a: { name: string; id: number }, b: { name: string; id: number }) =>
    a.name.localeCompare(b.name) || a.id - b.id;
  const map = (kind: SoleOwnership['kind']) => (row: { id: number | string; name: string }) => ({
    kind,
    id: Number(row.id),
    name: row.name,
  });
  return [
    ...(orgs as Array<{ id: number | string; name: string }>).map(map('organization')).sort(byName),
    ...(teams as Array<{ id: number | string; name: string }>).map(map('team')).sort(byName),
  ];
}

/**
 * Deletes the user unless they are the sole accepted OWNER of an organization or team (then
 * nothing changes and the answer names them). In one transaction: the check (with the owners'
 * rows locked), the accepted bookings hosted by the user or the managed users of their clients
 * become cancelled (reason HOST_DELETED_REASON), the users row is deleted, and the audit log gets
 * `user.deleted` (subject: the user id; details: managed users, clients, bookings cancelled).
 * After the commit the versions of the user, of every organization and team they were a member
 * of, and of their clients are bumped.
 */
export async function deleteAccount(
  knex: Knex,
  versions: VersionBumper,
  userId: number,
  audit?: AuditContext,
): Promise<AccountDeletion> {
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const user = await trx('users').where({ id: userId }).forUpdate().first('id');
    if (!user) return { deleted: true, account: { clientIds: [], userIds: [], cancelledBookings: 0 } };
    const soleOwnerOf = await findSoleOwnerships(trx, userId, { lock: true });
    if (soleOwnerOf.length > 0) return { deleted: false, soleOwnerOf };
    const clientIds = (
      (await trx('oauth_clients').where({ owner_user_id: userId }).select('id')) as Array<{ id: string }>
    ).map((row) => row.id);
    const managed =
      clientIds.length > 0
        ? ((await trx('users').whereIn('managed_by_client_id', clientIds).select('id')) as Array<{
            id: number | string;
          }>)
        : [];
    const userIds = [userId, ...managed.map((row) => Number(row.id))];
    const parents = (await trx('memberships')
      .whereIn('user_id', userIds)
      .select('organization_id', 'team_id')) as Array<{
      organization_id: number | string | null;
      team_id: number | string | null;
    }>;
    const cancelledBookings = await cancelBookingsOfDeletedHosts(trx, userIds);
    await trx('users').whereIn('id', userIds).delete();
    // Who the account was stays answerable by id only (no e-mail or name kept).
    await recordAuditEvent(trx, audit, {
      action: 'user.deleted',
      targetType: 'user',
      targetId: userId,
      before: { userId },
      after: null,
      details: { managedUserIds: userIds.slice(1), clientIds, cancelledBookings },
    });
    const keys = new Set<string>(userIds.map((id) => accessVersionKey.user(id)));
    for (const row of parents) {
      if (row.organization_id !== null) keys.add(accessVersionKey.org(Number(row.organization_id)));
      if (row.team_id !== null) keys.add(accessVersionKey.team(Number(row.team_id)));
    }
    for (const clientId of clientIds) keys.add(clientVersionKey(clientId));
    await Promise.all([...keys].map((key) => bumper.bumpVersion(key)));
    return { deleted: true, account: { clientIds, userIds, cancelledBookings } };
  });
}
