import type { Knex } from 'knex';
import {
  CLIENT_COLUMNS,
  type ClientReviewStatus,
  type ClientRow,
  bumpClientVersion,
  findOAuthClient,
  isWellFormedClientId,
  mapClient,
  type OAuthClient,
  type VersionBumper,
} from './oauth-clients.ts';
import { cancelBookingsOfDeletedHosts } from './bookings.ts';

/**
 * The SQL of OAuth-client management beyond `oauth-clients.ts`: lists by owner / organization and
 * by review status, settings that never touch review, row locks and deletion. The mail outbox
 * rows a review decision writes are in `mail-outbox.ts`.
 */

export { deferredBumper } from '../versions.ts';

/** Locks the client row (inside a transaction) and returns the client, or null. */
export async function lockOAuthClient(trx: Knex, id: string): Promise<OAuthClient | null> {
  if (!isWellFormedClientId(id)) return null;
  const row = await trx('oauth_clients').where({ id }).forUpdate().first('id');
  return row ? findOAuthClient(trx, id) : null;
}

/** The client columns under the table alias `c`, for lists read in one statement. */
const ALIASED_CLIENT_COLUMNS = CLIENT_COLUMNS.map((column) => `c.${column}`);

/**
 * Clients a user sees in settings: those they own and those of organizations where they have an
 * accepted membership (any role). Newest first. One statement: what is filtered is what is shown.
 * Without `page`, all of them (the API's list); with it, one page (the settings list).
 */
export async function listClientsVisibleTo(
  knex: Knex,
  userId: number,
  page?: { skip: number; take: number },
): Promise<OAuthClient[]> {
  const query = knex('oauth_clients as c')
    .where('c.owner_user_id', userId)
    .orWhereExists(function memberOfOrg() {
      this.select(knex.raw('1'))
        .from('memberships as m')
        .whereRaw('m.organization_id = c.organization_id')
        .where('m.user_id', userId)
        .where('m.accepted', true);
    })
    .orderBy([
      { column: 'c.created_at', order: 'desc' },
      { column: 'c.id', order: 'asc' },
    ])
    .select(ALIASED_CLIENT_COLUMNS);
  if (page) query.offset(page.skip).limit(page.take);
  return ((await query) as ClientRow[]).map(mapClient);
}

/** Review queue: clients by status (all when omitted), oldest first. */
export async function listClientsByReviewStatus(
  knex: Knex,
  options: { status?: ClientReviewStatus; skip: number; take: number },
): Promise<OAuthClient[]> {
  const query = knex('oauth_clients as c').select(ALIASED_CLIENT_COLUMNS);
  if (options.status) query.where('c.review_status', options.status);
  const rows = (await query
    .orderBy([
      { column: 'c.created_at', order: 'asc' },
      { column: 'c.id', order: 'asc' },
    ])
    .offset(options.skip)
    .limit(options.take)) as ClientRow[];
  return rows.map(mapClient);
}

/** The hint of each client's newest active secret (clients without one are absent). */
export async function newestSecretHints(
  knex: Knex,
  clientIds: readonly string[],
): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  if (clientIds.length === 0) return map;
  const rows = (await knex('oauth_client_secrets')
    .whereIn('client_id', clientIds)
    .whereNull('revoked_at')
    .orderBy('id', 'desc')
    .select('client_id', 'hint')) as Array<{ client_id: string; hint: string }>;
  for (const row of rows) if (!map.has(row.client_id)) map.set(row.client_id, row.hint);
  return map;
}

/** Settings that never matter for review (flags and booking redirects); undefined leaves alone. */
export interface OAuthClientSettingsPatch {
  areEmailsEnabled?: boolean;
  areDefaultEventTypesEnabled?: boolean;
  areCalendarEventsEnabled?: boolean;
  bookingRedirectUri?: string | null;
  bookingCancelRedirectUri?: string | null;
  bookingRescheduleRedirectUri?: string | null;
}

const SETTINGS_COLUMNS: { [K in keyof Required<OAuthClientSettingsPatch>]: string } = {
  areEmailsEnabled: 'are_emails_enabled',
  areDefaultEventTypesEnabled: 'are_default_event_types_enabled',
  areCalendarEventsEnabled: 'are_calendar_events_enabled',
  bookingRedirectUri: 'booking_redirect_uri',
  bookingCancelRedirectUri: 'booking_cancel_redirect_uri',
  bookingRescheduleRedirectUri: 'booking_reschedule_redirect_uri',
};

/** Applies the settings; bumps the client's version through `versions`. False when nothing changed. */
export async function updateClientSettings(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  patch: OAuthClientSettingsPatch,
): Promise<boolean> {
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS_COLUMNS) as Array<keyof OAuthClientSettingsPatch>) {
    if (patch[key] !== undefined) changes[SETTINGS_COLUMNS[key]] = patch[key];
  }
  if (Object.keys(changes).length === 0 || !isWellFormedClientId(clientId)) return false;
  changes['updated_at'] = knex.fn.now();
  const count = await knex('oauth_clients').where({ id: clientId }).update(changes);
  if (count > 0) await bumpClientVersion(knex, versions, clientId);
  return count > 0;
}

/** Number of active secrets of the client. */
export async function countActiveSecrets(knex: Knex, clientId: string): Promise<number> {
  const [row] = (await knex('oauth_client_secrets')
    .where({ client_id: clientId })
    .whereNull('revoked_at')
    .count({ count: '*' })) as Array<{ count: number | string }>;
  return Number(row?.count ?? 0);
}

/** Hard delete: secrets, consents and managed users go with it (foreign keys). Bumps the client. */
export async function deleteOAuthClient(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
): Promise<boolean> {
  if (!isWellFormedClientId(clientId)) return false;
  // Its managed users go with it: their bookings are cancelled first (they keep their rows).
  await cancelBookingsOfDeletedHosts(
    knex,
    knex('users').where({ managed_by_client_id: clientId }).select('id'),
  );
  const deleted = (await knex('oauth_clients').where({ id: clientId }).delete()) > 0;
  // Bumped whatever the count says (PGlite does not report counts of deletes).
  await bumpClientVersion(knex, versions, clientId);
  return deleted;
}

/** The role of the user's accepted membership of the organization, or null. */
export async function acceptedOrganizationRole(
  knex: Knex,
  userId: number,
  organizationId: number,
): Promise<'OWNER' | 'ADMIN' | 'MEMBER' | null> {
  const row = (await knex('memberships')
    .where({ user_id: userId, organization_id: organizationId, accepted: true })
    .first('role')) as { role: 'OWNER' | 'ADMIN' | 'MEMBER' } | undefined;
  return row?.role ?? null;
}

export async function organizationExists(knex: Knex, organizationId: number): Promise<boolean> {
  if (!Number.isSafeInteger(organizationId)) return false;
  return (await knex('organizations').where({ id: organizationId }).first('id')) !== undefined;
}

export async function findUserEmail(knex: Knex, userId: number | null): Promise<string | null> {
  // Agent clients have no owner.
  if (userId === null) return null;
  const row = (await knex('users').where({ id: userId }).first('email')) as { email: string } | undefined;
  return row?.email ?? null;
}

/**
 * Organizations where the user has an accepted ADMIN or OWNER membership: those they may register
 * a client for (the rule itself is `createClient`'s; this only lists the choices). By name.
 */
export async function organizationsAdministeredBy(
  knex: Knex,
  userId: number,
): Promise<Array<{ id: number; name: string }>> {
  const rows = (await knex('memberships as m')
    .join('organizations as o', 'o.id', 'm.organization_id')
    .where({ 'm.user_id': userId, 'm.accepted': true })
    .whereIn('m.role', ['OWNER', 'ADMIN'])
    .orderBy([
      { column: 'o.name', order: 'asc' },
      { column: 'o.id', order: 'asc' },
    ])
    .select('o.id', 'o.name')) as Array<{ id: number | string; name: string }>;
  return rows.map((row) => ({ id: Number(row.id), name: row.name }));
}

/** Names of organizations by id (unknown ids are absent), to label clients in lists. */
export async function organizationNames(
  knex: Knex,
  organizationIds: readonly number[],
): Promise<Map<number, string>> {
  const ids = [...new Set(organizationIds)].filter(Number.isSafeInteger);
  if (ids.length === 0) return new Map();
  const rows = (await knex('organizations').whereIn('id', ids).select('id', 'name')) as Array<{
    id: number | string;
    name: string;
  }>;
  return new Map(rows.map((row) => [Number(row.id), row.name]));
}
