import { createCipheriv, createDecipheriv, generateKeyPairSync, hkdfSync, randomBytes } from 'node:crypto';
import { type AuditContext, recordAuditEvent } from '@sched/db/queries/audit-log';
import {
  deleteRetiredSigningKeys,
  insertActiveSigningKey,
  listSigningKeys,
  type SigningAlg,
  withSigningKeyLock,
} from '@sched/db/queries/signing-keys';
import type { VersionBumper } from '@sched/db/versions';
import type { Knex } from 'knex';

/**
 * ID-token signing keys in the database, encrypted at rest. One active key signs; after a rotation the
 * previous one is `retiring`: it signs nothing more but stays in the JWKS until every ID token it
 * signed has expired (ID_TOKEN_TTL after it stopped signing, plus a margin for clock skew); the
 * next start-up or rotation after that deletes it, and every process drops it from its JWKS at
 * that moment already (key-ring.ts).
 *
 * Private keys are stored encrypted with AES-256-GCM under a key derived (HKDF-SHA256) from
 * KEY_ENCRYPTION_KEY, or, when that is unset, from the first of COOKIE_KEYS. Decryption tries every
 * configured secret (KEY_ENCRYPTION_KEY and all COOKIE_KEYS), found by the derived key's id stored
 * with the ciphertext, so rotating COOKIE_KEYS the usual way (new key first, old kept) keeps the
 * signing keys readable. The kid is authenticated data: a row's ciphertext cannot be moved to
 * another row.
 */

/** Lifetime of an ID token (seconds); the provider's `ttl.IdToken`. */
export const ID_TOKEN_TTL = 3600;
/** A retiring key stays published this long after it stopped signing: an ID token's lifetime + 5 min skew. */
export const RETIREMENT_SECONDS = ID_TOKEN_TTL + 300;
/** Token-store version bumped by every change of the key set: processes reload their keys when it moves. */
export const SIGNING_KEYS_VERSION_KEY = 'signing-keys';
export const SIGNING_ALGS = ['ES256', 'RS256'] as const satisfies readonly SigningAlg[];
export type { SigningAlg };

export interface SigningKeySettings {
  /** Secrets the private keys are encrypted with: the first encrypts, all decrypt. */
  secrets: readonly string[];
  /** Algorithm of new keys (ID_TOKEN_SIGNING_ALG). */
  alg: SigningAlg;
}

/** KEY_ENCRYPTION_KEY first when set, then every cookie key. */
export function keyEncryptionSecrets(config: {
  keyEncryptionKey: string | undefined;
  cookieKeys: readonly string[];
}): string[] {
  return [...(config.keyEncryptionKey ? [config.keyEncryptionKey] : []), ...config.cookieKeys];
}

const FORMAT = 'v1';

function deriveKey(secret: string): { id: string; key: Buffer } {
  const key = Buffer.from(hkdfSync('sha256', secret, 'sched signing keys', 'private-jwk encryption v1', 32));
  const id = Buffer.from(hkdfSync('sha256', secret, 'sched signing keys', 'key id v1', 6)).toString(
    'base64url',
  );
  return { id, key };
}

export function encryptPrivateJwk(
  jwk: Record<string, unknown>,
  kid: string,
  secrets: readonly string[],
): string {
  const secret = secrets[0];
  if (!secret) throw new Error('no secret to encrypt signing keys with (KEY_ENCRYPTION_KEY or COOKIE_KEYS)');
  const { id, key } = deriveKey(secret);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return [
    FORMAT,
    id,
    iv.toString('base64url'),
    body.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

export class SigningKeyDecryptionError extends Error {
  override name = 'SigningKeyDecryptionError';
}

export function decryptPrivateJwk(
  stored: string,
  kid: string,
  secrets: readonly string[],
): Record<string, unknown> {
  const [format, id, iv, body, tag] = stored.split('.');
  if (format !== FORMAT || !id || !iv || !body || !tag)
    throw new SigningKeyDecryptionError(`signing key ${kid}: unknown format`);
  const derived = secrets.map(deriveKey).find((candidate) => candidate.id === id);
  if (!derived) {
    throw new SigningKeyDecryptionError(
      `signing key ${kid} was encrypted with a secret that is no longer configured (KEY_ENCRYPTION_KEY or COOKIE_KEYS)`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', derived.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new SigningKeyDecryptionError(`signing key ${kid} could not be decrypted`);
  }
}

export interface GeneratedKey {
  kid: string;
  alg: SigningAlg;
  publicJwk: Record<string, unknown>;
  privateJwk: Record<string, unknown>;
}

export function generateSigningKey(alg: SigningAlg): GeneratedKey {
  const { privateKey, publicKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `${alg.toLowerCase()}-${randomBytes(12).toString('base64url')}`;
  const common = { kid, alg, use: 'sig' };
  return {
    kid,
    alg,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), ...common },
    privateJwk: { ...privateKey.export({ format: 'jwk' }), ...common },
  };
}

async function addActiveKey(trx: Knex.Transaction, settings: SigningKeySettings) {
  const key = generateSigningKey(settings.alg);
  const retired = await insertActiveSigningKey(trx, {
    kid: key.kid,
    alg: key.alg,
    publicJwk: key.publicJwk,
    privateJwkEncrypted: encryptPrivateJwk(key.privateJwk, key.kid, settings.secrets),
  });
  return { kid: key.kid, alg: key.alg, retired };
}

const retirementCutoff = (now: Date): Date => new Date(now.getTime() - RETIREMENT_SECONDS * 1000);

/**
 * Start-up: makes sure an active key of the configured algorithm exists (the first start generates
 * one; a changed ID_TOKEN_SIGNING_ALG rotates to a key of the new algorithm) and deletes retiring keys
 * whose ID tokens have all expired. True when the key set changed.
 */
export async function ensureActiveSigningKey(knex: Knex, settings: SigningKeySettings): Promise<boolean> {
  return withSigningKeyLock(knex, async (trx) => {
    const deleted = await deleteRetiredSigningKeys(trx, retirementCutoff(new Date()));
    const active = (await listSigningKeys(trx)).find((key) => key.state === 'active');
    if (active && active.alg === settings.alg) return deleted.length > 0;
    await addActiveKey(trx, settings);
    return true;
  });
}

export interface RotationResult {
  /** The new active key. */
  kid: string;
  alg: SigningAlg;
  /** The key that stopped signing (published until `retiredKeyPublishedUntil`). */
  retired: string | null;
  retiredKeyPublishedUntil: string | null;
  /** Retiring keys deleted because no token they signed can still be verified. */
  deleted: string[];
}

/**
 * `npm run cli -- rotate-keys`: a new active key; the previous one retires (verifies, never signs);
 * expired retiring keys are deleted. `versions` (the token store) tells running processes to reload.
 * The `signing_key.rotated` event (kids only) is written in the rotation's transaction, its actor
 * named by `audit` (the system without one).
 */
export async function rotateSigningKeys(
  knex: Knex,
  settings: SigningKeySettings,
  versions: VersionBumper | undefined,
  audit?: AuditContext,
): Promise<RotationResult> {
  const now = new Date();
  const result = await withSigningKeyLock(knex, async (trx) => {
    const deleted = await deleteRetiredSigningKeys(trx, retirementCutoff(now));
    const added = await addActiveKey(trx, settings);
    await recordAuditEvent(trx, audit, {
      action: 'signing_key.rotated',
      targetType: 'signing_key',
      targetId: added.kid,
      before: { activeKid: added.retired },
      after: { activeKid: added.kid, alg: added.alg },
      details: { deleted },
    });
    return { ...added, deleted };
  });
  await versions?.bumpVersion(SIGNING_KEYS_VERSION_KEY);
  return {
    ...result,
    retiredKeyPublishedUntil: result.retired
      ? new Date(now.getTime() + RETIREMENT_SECONDS * 1000).toISOString()
      : null,
  };
}

export interface UsableKey {
  kid: string;
  alg: SigningAlg;
  active: boolean;
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  /** Epoch ms after which the key is no longer published (null for the active key). */
  publishedUntil: number | null;
}

/** The keys to sign and publish with: the active one first, then retiring keys still published. */
export async function loadSigningKeys(knex: Knex, secrets: readonly string[]): Promise<UsableKey[]> {
  const now = Date.now();
  return (await listSigningKeys(knex))
    .map((row) => ({
      row,
      publishedUntil: row.retiredAt ? row.retiredAt.getTime() + RETIREMENT_SECONDS * 1000 : null,
    }))
    .filter(({ publishedUntil }) => publishedUntil === null || publishedUntil > now)
    .map(({ row, publishedUntil }) => ({
      kid: row.kid,
      alg: row.alg,
      active: row.state === 'active',
      publicJwk: row.publicJwk,
      privateJwk: decryptPrivateJwk(row.privateJwkEncrypted, row.kid, secrets),
      publishedUntil,
    }));
}
