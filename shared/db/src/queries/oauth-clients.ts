import { newClientSecret, randomToken } from '@sched/kit/secrets';
import { isLegacyScopeSet } from '@sched/policy/scopes';
import type { Knex } from 'knex';
import { LimitReachedError, RecordStateError } from '../errors.ts';
import { bumpAfterWrite, type VersionBumper } from '../versions.ts';

export type { VersionBumper } from '../versions.ts';

/**
 * OAuth clients and their secrets (docs/schema.md, migration 0004). The client-lifecycle code writes
 * them; the authorization server reads them.
 *
 * Cache invalidation contract: the authorization server caches clients per process and checks the
 * token-store version `clientVersionKey(id)` on every request that uses one. Every change to a
 * client that matters for authorization (any column, a secret added or revoked, a review
 * decision, deletion) bumps that version after it is committed: the write functions take a
 * `VersionBumper` and bump once their statement succeeded (shared/db/src/versions.ts; inside a
 * transaction, the bumper of `transactionWithBumps`).
 */

export const CLIENT_TYPES = ['confidential', 'public'] as const;
export type ClientType = (typeof CLIENT_TYPES)[number];

/**
 * How a client came to be: in settings, by API or the CLI (`settings`, the seed's clients), as an
 * agent identified by its Client ID Metadata Document URL (`metadata_document`), or by dynamic
 * registration (`dynamic`). The last two are agent clients (migration 0017).
 */
export const CLIENT_REGISTRATIONS = ['settings', 'metadata_document', 'dynamic'] as const;
export type ClientRegistration = (typeof CLIENT_REGISTRATIONS)[number];

export const REVIEW_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export type ClientReviewStatus = (typeof REVIEW_STATUSES)[number];

export const MAX_ACTIVE_SECRETS = 2;
/**
 * The messages of addClientSecret's LimitReachedError and RecordStateError. The clients library
 * (and each service's data-error mapping) answers those errors with a 400 of the same text.
 */
export const TOO_MANY_SECRETS_MESSAGE = 'Maximum of 2 secrets allowed. Delete an existing secret first.';
export const PUBLIC_CLIENT_SECRET_MESSAGE = 'Public clients do not use client secrets';

export interface OAuthClient {
  id: string;
  /** Null for agent clients (they register themselves). */
  ownerUserId: number | null;
  organizationId: number | null;
  name: string;
  logo: string | null;
  websiteUrl: string | null;
  purpose: string | null;
  redirectUris: string[];
  scopes: string[];
  clientType: ClientType;
  registration: ClientRegistration;
  reviewStatus: ClientReviewStatus;
  rejectionReason: string | null;
  reviewedAt: Date | null;
  reviewedByUserId: number | null;
  /** No scopes, or only READ_BOOKING / READ_PROFILE (derived from scopes on every write). */
  isLegacy: boolean;
  areEmailsEnabled: boolean;
  areDefaultEventTypesEnabled: boolean;
  areCalendarEventsEnabled: boolean;
  bookingRedirectUri: string | null;
  bookingCancelRedirectUri: string | null;
  bookingRescheduleRedirectUri: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A client as the authorization server needs it: with the SHA-256 hashes of its active secrets. */
export interface OAuthClientWithSecrets extends OAuthClient {
  /** Hex SHA-256 of each active (unrevoked) secret, oldest first; empty for public clients. */
  activeSecretHashes: string[];
}

export interface ClientSecretSummary {
  id: number;
  /** Last 4 characters of the secret. */
  hint: string;
  createdAt: Date;
}

/** A new secret: `plain` exists only in this return value (the database keeps its SHA-256). */
export interface CreatedClientSecret extends ClientSecretSummary {
  plain: string;
}

export const CLIENT_COLUMNS = [
  'id',
  'owner_user_id',
  'organization_id',
  'name',
  'logo',
  'website_url',
  'purpose',
  'redirect_uris',
  'scopes',
  'client_type',
  'registration',
  'review_status',
  'rejection_reason',
  'reviewed_at',
  'reviewed_by_user_id',
  'is_legacy',
  'are_emails_enabled',
  'are_default_event_types_enabled',
  'are_calendar_events_enabled',
  'booking_redirect_uri',
  'booking_cancel_redirect_uri',
  'booking_reschedule_redirect_uri',
  'created_at',
  'updated_at',
] as const;

export interface ClientRow {
  id: string;
  owner_user_id: number | string | null;
  organization_id: number | string | null;
  name: string;
  logo: string | null;
  website_url: string | null;
  purpose: string | null;
  redirect_uris: string[] | null;
  scopes: string[] | null;
  client_type: string;
  registration: string;
  review_status: string;
  rejection_reason: string | null;
  reviewed_at: Date | null;
  reviewed_by_user_id: number | string | null;
  is_legacy: boolean;
  are_emails_enabled: boolean;
  are_default_event_types_enabled: boolean;
  are_calendar_events_enabled: boolean;
  booking_redirect_uri: string | null;
  booking_cancel_redirect_uri: string | null;
  booking_reschedule_redirect_uri: string | null;
  created_at: Date;
  updated_at: Date;
}

const numberOrNull = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

export function mapClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    ownerUserId: numberOrNull(row.owner_user_id),
    organizationId: numberOrNull(row.organization_id),
    name: row.name,
    logo: row.logo,
    websiteUrl: row.website_url,
    purpose: row.purpose,
    redirectUris: row.redirect_uris ?? [],
    scopes: row.scopes ?? [],
    clientType: row.client_type as ClientType,
    registration: row.registration as ClientRegistration,
    reviewStatus: row.review_status as ClientReviewStatus,
    rejectionReason: row.rejection_reason,
    reviewedAt: row.reviewed_at,
    reviewedByUserId: numberOrNull(row.reviewed_by_user_id),
    isLegacy: row.is_legacy,
    areEmailsEnabled: row.are_emails_enabled,
    areDefaultEventTypesEnabled: row.are_default_event_types_enabled,
    areCalendarEventsEnabled: row.are_calendar_events_enabled,
    bookingRedirectUri: row.booking_redirect_uri,
    bookingCancelRedirectUri: row.booking_cancel_redirect_uri,
    bookingRescheduleRedirectUri: row.booking_reschedule_redirect_uri,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Token-store version key of a client (docs/token-store.md: `ver:<key>`). */
export const clientVersionKey = (clientId: string): string => `client:${clientId}`;

/** Tells every process that `clientId` changed (the writers below, after their write). */
export const bumpClientVersion = (knex: Knex, versions: VersionBumper, clientId: string): Promise<void> =>
  bumpAfterWrite(knex, versions, [clientVersionKey(clientId)]);

/**
 * Client ids are url-safe random strings, or the https URL of an agent's metadata document (check
 * constraint of migration 0017); anything else cannot exist.
 */
const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;
const DOCUMENT_CLIENT_ID = /^https:\/\/[^\s#]{1,992}$/;
export const isWellFormedClientId = (id: unknown): id is string =>
  typeof id === 'string' && (CLIENT_ID.test(id) || DOCUMENT_CLIENT_ID.test(id));

export async function findOAuthClient(knex: Knex, id: string): Promise<OAuthClient | null> {
  if (!isWellFormedClientId(id)) return null;
  const row = (await knex('oauth_clients').where({ id }).first(CLIENT_COLUMNS)) as ClientRow | undefined;
  return row ? mapClient(row) : null;
}

/** The organization the client belongs to (its grants are that organization's events too), or null. */
export async function findClientOrganizationId(knex: Knex, id: string): Promise<number | null> {
  if (!isWellFormedClientId(id)) return null;
  const row = (await knex('oauth_clients').where({ id }).first('organization_id')) as
    | { organization_id: number | string | null }
    | undefined;
  return row ? numberOrNull(row.organization_id) : null;
}

/**
 * The client and the hashes of its active secrets in one statement (one round trip): what the
 * authorization server loads for every authorization and token request.
 */
export async function findOAuthClientWithSecrets(
  knex: Knex,
  id: string,
): Promise<OAuthClientWithSecrets | null> {
  if (!isWellFormedClientId(id)) return null;
  const secrets = knex('oauth_client_secrets as s')
    .whereRaw('s.client_id = c.id')
    .whereNull('s.revoked_at')
    .select(knex.raw("coalesce(array_agg(s.secret_hash order by s.id), '{}')"));
  const row = (await knex('oauth_clients as c')
    .where('c.id', id)
    .first([...CLIENT_COLUMNS.map((column) => `c.${column}`), secrets.as('active_secret_hashes')])) as
    | (ClientRow & { active_secret_hashes: string[] | null })
    | undefined;
  if (!row) return null;
  return { ...mapClient(row), activeSecretHashes: row.active_secret_hashes ?? [] };
}

export interface NewOAuthClient {
  ownerUserId: number;
  name: string;
  redirectUris: string[];
  scopes: string[];
  clientType?: ClientType;
  organizationId?: number | null;
  logo?: string | null;
  websiteUrl?: string | null;
  purpose?: string | null;
  /** Defaults to PENDING (a new client waits for review). */
  reviewStatus?: ClientReviewStatus;
  rejectionReason?: string | null;
  /** Defaults to a random url-safe id. */
  id?: string;
}

/**
 * Inserts a client (is_legacy derived from its scopes) and, for a confidential client, its first
 * secret, in one transaction. Input validation (URIs, scope catalogue, review rules) is the
 * caller's; the database enforces its constraints.
 */
export async function createOAuthClient(
  knex: Knex,
  input: NewOAuthClient,
): Promise<{ client: OAuthClient; secret: CreatedClientSecret | null }> {
  const clientType = input.clientType ?? 'confidential';
  return knex.transaction(async (trx) => {
    const [row] = (await trx('oauth_clients')
      .insert({
        id: input.id ?? randomToken(24),
        owner_user_id: input.ownerUserId,
        organization_id: input.organizationId ?? null,
        name: input.name,
        logo: input.logo ?? null,
        website_url: input.websiteUrl ?? null,
        purpose: input.purpose ?? null,
        redirect_uris: input.redirectUris,
        scopes: input.scopes,
        client_type: clientType,
        review_status: input.reviewStatus ?? 'PENDING',
        rejection_reason: input.rejectionReason ?? null,
        is_legacy: isLegacyScopeSet(input.scopes),
      })
      .returning(CLIENT_COLUMNS)) as ClientRow[];
    const client = mapClient(row!);
    const secret = clientType === 'confidential' ? await insertSecret(trx, client.id) : null;
    return { client, secret };
  });
}

async function insertSecret(knex: Knex, clientId: string): Promise<CreatedClientSecret> {
  const secret = newClientSecret();
  const [row] = (await knex('oauth_client_secrets')
    .insert({ client_id: clientId, secret_hash: secret.hash, hint: secret.hint })
    .returning(['id', 'hint', 'created_at'])) as Array<{
    id: number | string;
    hint: string;
    created_at: Date;
  }>;
  return { id: Number(row!.id), hint: row!.hint, createdAt: row!.created_at, plain: secret.plain };
}

/**
 * Generates a secret for a confidential client that has fewer than 2 active ones (the client row is
 * locked while counting, so two concurrent calls cannot both pass). Null when there is no such
 * client; RecordStateError('oauthClient', 'public') for a public client, LimitReachedError
 * ('oauthClientSecret') for a third secret.
 */
export async function addClientSecret(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
): Promise<CreatedClientSecret | null> {
  if (!isWellFormedClientId(clientId)) return null;
  const created = await knex.transaction(async (trx) => {
    const client = (await trx('oauth_clients').where({ id: clientId }).forUpdate().first('client_type')) as
      | { client_type: string }
      | undefined;
    if (!client) return null;
    if (client.client_type !== 'confidential')
      throw new RecordStateError('oauthClient', 'public', PUBLIC_CLIENT_SECRET_MESSAGE);
    const [counted] = (await trx('oauth_client_secrets')
      .where({ client_id: clientId })
      .whereNull('revoked_at')
      .count({ count: '*' })) as Array<{ count: number | string }>;
    if (Number(counted!.count) >= MAX_ACTIVE_SECRETS)
      throw new LimitReachedError('oauthClientSecret', MAX_ACTIVE_SECRETS, TOO_MANY_SECRETS_MESSAGE);
    return insertSecret(trx, clientId);
  });
  if (created) await bumpClientVersion(knex, versions, clientId);
  return created;
}

/** The client's active secrets, oldest first. */
export async function listClientSecrets(knex: Knex, clientId: string): Promise<ClientSecretSummary[]> {
  if (!isWellFormedClientId(clientId)) return [];
  const rows = (await knex('oauth_client_secrets')
    .where({ client_id: clientId })
    .whereNull('revoked_at')
    .orderBy('id')
    .select('id', 'hint', 'created_at')) as Array<{ id: number | string; hint: string; created_at: Date }>;
  return rows.map((row) => ({ id: Number(row.id), hint: row.hint, createdAt: row.created_at }));
}

/**
 * Revokes one active secret of the client, effective on the next request (the version bump makes
 * every authorization server process reload the client). False when it has no such active secret.
 */
export async function revokeClientSecret(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  secretId: number,
): Promise<boolean> {
  if (!isWellFormedClientId(clientId) || !Number.isSafeInteger(secretId)) return false;
  const count = await knex('oauth_client_secrets')
    .where({ id: secretId, client_id: clientId })
    .whereNull('revoked_at')
    .update({ revoked_at: knex.fn.now() });
  if (count > 0) await bumpClientVersion(knex, versions, clientId);
  return count > 0;
}

/**
 * Records a review decision (or a move back to PENDING). A REJECTED status needs a reason. Null when
 * there is no such client. Which moves are allowed is the caller's rule (`@sched/policy/client-review`).
 */
export async function setReviewStatus(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  status: ClientReviewStatus,
  options: { rejectionReason?: string | null; reviewedByUserId?: number | null } = {},
): Promise<OAuthClient | null> {
  if (!isWellFormedClientId(clientId)) return null;
  const reviewed = status !== 'PENDING';
  const [row] = (await knex('oauth_clients')
    .where({ id: clientId })
    .update({
      review_status: status,
      rejection_reason: status === 'REJECTED' ? (options.rejectionReason ?? null) : null,
      reviewed_at: reviewed ? knex.fn.now() : null,
      reviewed_by_user_id: reviewed ? (options.reviewedByUserId ?? null) : null,
      updated_at: knex.fn.now(),
    })
    .returning(CLIENT_COLUMNS)) as ClientRow[];
  if (!row) return null;
  await bumpClientVersion(knex, versions, clientId);
  return mapClient(row);
}

/** Fields updateOAuthClient may change; `undefined` leaves a field alone, null clears it. */
export interface OAuthClientPatch {
  name?: string;
  logo?: string | null;
  websiteUrl?: string | null;
  purpose?: string | null;
  redirectUris?: string[];
  /** Also rewrites is_legacy. */
  scopes?: string[];
}

const PATCH_COLUMNS: { [K in keyof Required<OAuthClientPatch>]: string } = {
  name: 'name',
  logo: 'logo',
  websiteUrl: 'website_url',
  purpose: 'purpose',
  redirectUris: 'redirect_uris',
  scopes: 'scopes',
};

/** Applies `patch` (no review rules here: see `@sched/policy/client-review`). Null when missing. */
export async function updateOAuthClient(
  knex: Knex,
  versions: VersionBumper,
  clientId: string,
  patch: OAuthClientPatch,
): Promise<OAuthClient | null> {
  if (!isWellFormedClientId(clientId)) return null;
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(PATCH_COLUMNS) as Array<keyof OAuthClientPatch>) {
    if (patch[key] !== undefined) changes[PATCH_COLUMNS[key]] = patch[key];
  }
  if (patch.scopes !== undefined) changes['is_legacy'] = isLegacyScopeSet(patch.scopes);
  if (Object.keys(changes).length === 0) return findOAuthClient(knex, clientId);
  changes['updated_at'] = knex.fn.now();
  const [row] = (await knex('oauth_clients')
    .where({ id: clientId })
    .update(changes)
    .returning(CLIENT_COLUMNS)) as ClientRow[];
  if (!row) return null;
  await bumpClientVersion(knex, versions, clientId);
  return mapClient(row);
}
