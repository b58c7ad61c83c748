import type { Knex } from 'knex';
import { bumpAfterWrite, type VersionBumper } from '../versions.ts';
import {
  CLIENT_COLUMNS,
  type ClientReviewStatus,
  type ClientRow,
  clientVersionKey,
  isWellFormedClientId,
  mapClient,
  type OAuthClient,
} from './oauth-clients.ts';

/**
 * Agent clients (migration 0017): recorded by the authorization server the first time an agent is
 * used (metadata document) or registers (dynamic), then reviewed like every client. They are public
 * clients without an owner; what their document or registration says is kept current here.
 */

export interface AgentClientRecord {
  id: string;
  registration: 'metadata_document' | 'dynamic';
  name: string;
  redirectUris: string[];
  scopes: string[];
  reviewStatus: ClientReviewStatus;
  logo?: string | null;
  websiteUrl?: string | null;
}

const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 200;

const rowOf = (knex: Knex, record: AgentClientRecord) => ({
  id: record.id,
  owner_user_id: null,
  name: record.name.slice(0, MAX_NAME) || record.id.slice(0, MAX_NAME),
  logo: record.logo ?? null,
  website_url: record.websiteUrl ?? null,
  redirect_uris: record.redirectUris.slice(0, MAX_REDIRECT_URIS),
  scopes: record.scopes,
  client_type: 'public',
  registration: record.registration,
  review_status: record.reviewStatus,
  reviewed_at: record.reviewStatus === 'PENDING' ? null : knex.fn.now(),
  is_legacy: false,
});

/**
 * Records the agent unless it exists (concurrent first uses: one insert wins, the others read it).
 * Returns the stored client, which may be in another review state than `record` asked for.
 */
export async function recordAgentClient(
  knex: Knex,
  versions: VersionBumper,
  record: AgentClientRecord,
): Promise<OAuthClient> {
  const inserted = (await knex('oauth_clients')
    .insert(rowOf(knex, record))
    .onConflict('id')
    .ignore()
    .returning(CLIENT_COLUMNS)) as ClientRow[];
  if (inserted[0]) {
    await bumpAfterWrite(knex, versions, [clientVersionKey(record.id)]);
    return mapClient(inserted[0]);
  }
  const existing = (await knex('oauth_clients').where({ id: record.id }).first(CLIENT_COLUMNS)) as ClientRow;
  return mapClient(existing);
}

/**
 * Keeps an agent's name and redirect URIs as its metadata document says now (the document is
 * authoritative; the row is what pages and the review queue show). No-op when nothing changed.
 */
export async function syncAgentDocument(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  document: { name: string; redirectUris: string[]; logo: string | null; websiteUrl: string | null },
): Promise<void> {
  if (!isWellFormedClientId(clientId)) return;
  const row = rowOf(knex, {
    id: clientId,
    registration: 'metadata_document',
    scopes: [],
    reviewStatus: 'PENDING',
    ...document,
  });
  const count = await knex('oauth_clients')
    .where({ id: clientId, registration: 'metadata_document' })
    .andWhere((changed) =>
      changed
        .whereNot({ name: row.name })
        .orWhereRaw('redirect_uris is distinct from ?::text[]', [row.redirect_uris])
        .orWhereRaw('logo is distinct from ?', [row.logo])
        .orWhereRaw('website_url is distinct from ?', [row.website_url]),
    )
    .update({
      name: row.name,
      redirect_uris: row.redirect_uris,
      logo: row.logo,
      website_url: row.website_url,
      updated_at: knex.fn.now(),
    });
  if (count > 0) await bumpAfterWrite(knex, versions, [clientVersionKey(clientId)]);
}
