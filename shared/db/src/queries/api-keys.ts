import { newApiKey } from '@sched/kit/secrets';
import type { Knex } from 'knex';
import { bumpAfterWrite, transactionWithBumps, type VersionBumper } from '../versions.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { accessVersionKey } from './access-facts.ts';
import { mapUser, type User, type UserRow, userColumns } from './users.ts';

/** What GET /v2/api-keys lists. */
export interface ApiKeySummary {
  id: number;
  /** Last 4 characters of the key. */
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A new key: `plain` exists only in this return value (the database keeps its SHA-256). */
export interface CreatedApiKey extends ApiKeySummary {
  plain: string;
}

interface ApiKeyRow {
  id: number | string;
  hint: string;
  created_at: Date;
  last_used_at: Date | null;
}

const SUMMARY_COLUMNS = ['id', 'hint', 'created_at', 'last_used_at'] as const;

const mapSummary = (row: ApiKeyRow): ApiKeySummary => ({
  id: Number(row.id),
  hint: row.hint,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** A new key for the user, with its audit event (the hint only, never the key or its hash). */
export async function createApiKey(knex: Knex, userId: number, audit?: AuditContext): Promise<CreatedApiKey> {
  const key = newApiKey();
  return knex.transaction(async (trx) => {
    const [row] = (await trx('api_keys')
      .insert({ user_id: userId, key_hash: key.hash, hint: key.hint })
      .returning(SUMMARY_COLUMNS)) as ApiKeyRow[];
    const summary = mapSummary(row!);
    await recordAuditEvent(trx, audit, {
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: summary.id,
      after: { userId, hint: summary.hint },
    });
    return { ...summary, plain: key.plain };
  });
}

/**
 * The owner of the unrevoked key with this SHA-256 hex hash (sha256Hex of the presented key), or
 * null. One indexed lookup joined to the user.
 */
export async function findActiveApiKeyByHash(
  knex: Knex,
  keyHash: string,
): Promise<{ apiKeyId: number; lastUsedAt: Date | null; user: User } | null> {
  const row = (await knex('api_keys as k')
    .join('users as u', 'u.id', 'k.user_id')
    .where('k.key_hash', keyHash.toLowerCase())
    .whereNull('k.revoked_at')
    // A disabled account's keys are refused even if one survived the disable.
    .whereNull('u.disabled_at')
    .first([...userColumns('u'), 'k.id as api_key_id', 'k.last_used_at as api_key_last_used_at'])) as
    | (UserRow & { api_key_id: number | string; api_key_last_used_at: Date | null })
    | undefined;
  if (!row) return null;
  return { apiKeyId: Number(row.api_key_id), lastUsedAt: row.api_key_last_used_at, user: mapUser(row) };
}

/** The user's unrevoked keys, newest first. */
export async function listApiKeys(knex: Knex, userId: number): Promise<ApiKeySummary[]> {
  const rows = (await knex('api_keys')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select(SUMMARY_COLUMNS)) as ApiKeyRow[];
  return rows.map(mapSummary);
}

/**
 * Revokes one of the user's keys, effective at once. False when the user has no such unrevoked
 * key (another user's key counts as "no such key").
 */
export async function revokeApiKey(
  knex: Knex,
  versions: VersionBumper,
  userId: number,
  apiKeyId: number,
  audit?: AuditContext,
): Promise<boolean> {
  if (!Number.isSafeInteger(apiKeyId)) return false;
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const [row] = (await trx('api_keys')
      .where({ id: apiKeyId, user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() })
      .returning(['hint'])) as Array<{ hint: string }>;
    if (!row) return false;
    await recordAuditEvent(trx, audit, {
      action: 'api_key.revoked',
      targetType: 'api_key',
      targetId: apiKeyId,
      before: { userId, hint: row.hint, revoked: false },
      after: { userId, hint: row.hint, revoked: true },
    });
    // The API caches keys by hash, tagged with their user's version.
    await bumper.bumpVersion(accessVersionKey.user(userId));
    return true;
  });
}

/** Revokes every unrevoked key of the user (account recovery, deletion); returns how many. */
export async function revokeAllApiKeys(knex: Knex, versions: VersionBumper, userId: number): Promise<number> {
  if (!Number.isSafeInteger(userId)) return 0;
  const count = await knex('api_keys')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .update({ revoked_at: knex.fn.now() });
  // The API caches keys by hash, tagged with their user's version.
  if (count > 0) await bumpAfterWrite(knex, versions, [accessVersionKey.user(userId)]);
  return count;
}

/**
 * Records a use. Writes at most once per `minIntervalSeconds` per key, so authenticating every
 * request does not turn into a write per request.
 */
export async function touchLastUsed(knex: Knex, apiKeyId: number, minIntervalSeconds = 60): Promise<void> {
  await knex('api_keys')
    .where({ id: apiKeyId })
    .where((query) =>
      query
        .whereNull('last_used_at')
        .orWhereRaw('last_used_at < now() - make_interval(secs => ?)', [Math.max(0, minIntervalSeconds)]),
    )
    .update({ last_used_at: knex.fn.now() });
}
