import type { Knex } from 'knex';
import { type AuditContext, type NewAuditEvent, recordAuditEvent } from './audit-log.ts';
import { findClientOrganizationId, isWellFormedClientId } from './oauth-clients.ts';

/**
 * Remembered consent: one row per user and client holding every scope the user has allowed that
 * client (docs/schema.md). A new request is pre-approved when its scopes are a subset.
 */

/** The scopes the user has allowed the client, or null when they never consented. */
export async function findConsentedScopes(
  knex: Knex,
  userId: number,
  clientId: string,
): Promise<string[] | null> {
  if (!Number.isSafeInteger(userId) || !isWellFormedClientId(clientId)) return null;
  const row = (await knex('oauth_consents')
    .where({ user_id: userId, client_id: clientId })
    .first('scopes')) as { scopes: string[] | null } | undefined;
  return row ? (row.scopes ?? []) : null;
}

/** True when the user has consented to this client for every scope in `scopes` (an empty set too). */
export async function hasConsent(
  knex: Knex,
  userId: number,
  clientId: string,
  scopes: readonly string[],
): Promise<boolean> {
  const consented = await findConsentedScopes(knex, userId, clientId);
  if (consented === null) return false;
  const allowed = new Set(consented);
  return scopes.every((scope) => allowed.has(scope));
}

/** Adds `scopes` to what the user has allowed the client (creating the row when missing). */
export async function rememberConsent(
  knex: Knex,
  userId: number,
  clientId: string,
  scopes: readonly string[],
): Promise<void> {
  await knex.raw(
    `insert into oauth_consents (user_id, client_id, scopes) values (?, ?, ?::text[])
     on conflict (user_id, client_id) do update
       set scopes = array(select distinct unnest(oauth_consents.scopes || excluded.scopes) order by 1),
           updated_at = now()`,
    [userId, clientId, [...new Set(scopes)].sort()],
  );
}

/**
 * A grant in the audit log: who (the actor), which client, the user and the scopes granted. A
 * client of an organization puts the event in that organization's log as well.
 */
async function grantCreated(
  knex: Knex,
  userId: number,
  clientId: string,
  scopes: readonly string[],
  consent: 'given' | 'remembered',
): Promise<NewAuditEvent> {
  return {
    action: 'grant.created',
    targetType: 'oauth_client',
    targetId: clientId,
    organizationId: await findClientOrganizationId(knex, clientId),
    after: { userId, scopes: [...new Set(scopes)].sort() },
    details: { consent },
  };
}

/**
 * The user allowed the client `scopes` on the consent page: the consent is remembered
 * (`rememberConsent`) with its `grant.created` event, in one transaction.
 */
export async function giveConsent(
  knex: Knex,
  audit: AuditContext,
  userId: number,
  clientId: string,
  scopes: readonly string[],
): Promise<void> {
  await knex.transaction(async (trx) => {
    await rememberConsent(trx, userId, clientId, scopes);
    await recordAuditEvent(trx, audit, await grantCreated(trx, userId, clientId, scopes, 'given'));
  });
}

/**
 * A grant made without a prompt from a remembered consent. The grant is in the token store, not
 * in a database transaction: its event follows the store's write.
 */
export async function recordGrantFromRememberedConsent(
  knex: Knex,
  audit: AuditContext,
  userId: number,
  clientId: string,
  scopes: readonly string[],
): Promise<void> {
  await recordAuditEvent(knex, audit, await grantCreated(knex, userId, clientId, scopes, 'remembered'));
}

/** Forgets the consent; the next authorization asks again. False when there was none. */
export async function forgetConsent(knex: Knex, userId: number, clientId: string): Promise<boolean> {
  if (!Number.isSafeInteger(userId) || !isWellFormedClientId(clientId)) return false;
  // Raw, for the row count: knex's del() on the PGlite dialect answers the driver's result object.
  const result = (await knex.raw('delete from oauth_consents where user_id = ? and client_id = ?', [
    userId,
    clientId,
  ])) as { rowCount: number | null };
  return (result.rowCount ?? 0) > 0;
}

/** Forgets every consent of the user (account recovery, deletion); returns how many. */
export async function forgetAllConsents(knex: Knex, userId: number): Promise<number> {
  if (!Number.isSafeInteger(userId)) return 0;
  const result = (await knex.raw('delete from oauth_consents where user_id = ?', [userId])) as {
    rowCount: number | null;
  };
  return result.rowCount ?? 0;
}

/** A remembered consent of the user, with the client's public face (connected apps). */
export interface ConsentedClient {
  clientId: string;
  name: string;
  logo: string | null;
  websiteUrl: string | null;
  scopes: string[];
  createdAt: Date;
}

/**
 * The clients the user has a remembered consent for, and those of `alsoClientIds` (the clients the
 * token store holds the user's tokens of), with their name, logo and website. `scopes` and
 * `createdAt` are the consent's; without a consent row (`consented` false) they are empty and now.
 * Ordered by client name, then id. Deleted clients drop out.
 */
export async function listConsentedClients(
  knex: Knex,
  userId: number,
  alsoClientIds: readonly string[],
): Promise<Array<ConsentedClient & { consented: boolean }>> {
  if (!Number.isSafeInteger(userId)) return [];
  const ids = alsoClientIds.filter(isWellFormedClientId);
  const { rows } = (await knex.raw(
    `select c.id as client_id, c.name, c.logo, c.website_url, oc.scopes, oc.created_at,
            (oc.user_id is not null) as consented
       from oauth_clients c
       left join oauth_consents oc on oc.client_id = c.id and oc.user_id = ?
      where oc.user_id is not null or c.id in (select jsonb_array_elements_text(?::jsonb))
      order by c.name, c.id`,
    [userId, JSON.stringify(ids)],
  )) as {
    rows: Array<{
      client_id: string;
      name: string;
      logo: string | null;
      website_url: string | null;
      scopes: string[] | null;
      created_at: Date | string | null;
      consented: boolean;
    }>;
  };
  return rows.map((row) => ({
    clientId: row.client_id,
    name: row.name,
    logo: row.logo,
    websiteUrl: row.website_url,
    scopes: row.scopes ?? [],
    createdAt: row.created_at === null ? new Date() : new Date(row.created_at),
    consented: row.consented,
  }));
}
