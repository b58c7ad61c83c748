import type { Knex } from 'knex';
import { isWellFormedClientId } from './oauth-clients.ts';

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

/** Forgets the consent; the next authorization asks again. False when there was none. */
export async function forgetConsent(knex: Knex, userId: number, clientId: string): Promise<boolean> {
  if (!Number.isSafeInteger(userId) || !isWellFormedClientId(clientId)) return false;
  const count = await knex('oauth_consents').where({ user_id: userId, client_id: clientId }).del();
  return count > 0;
}
