import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { randomToken, sha256Hex } from '@sched/kit/secrets';
import type { AuthDeps } from '../deps.ts';

/**
 * A new secret is shown once: the POST that made it keeps it for a few minutes and redirects to
 * the page of its client (or, in the admin console, its resource server: `clientId` is then the
 * resource server's id) with a random reveal id; the page consumes it (atomically, so two tabs cannot
 * both show it) and deletes it. A reload, the back button or a copied link then shows that it is
 * gone. The record is bound to the user who made it.
 *
 * The token store never holds the secret readable: the record sits under the SHA-256 of the reveal
 * id and the secret is sealed (AES-256-GCM) with a key derived from the id, which only the
 * browser's redirect carries. Someone reading Redis learns nothing usable.
 */
const MODEL = 'SettingsSecretReveal';
const TTL_SECONDS = 5 * 60;

interface RevealRecord {
  userId: number;
  clientId: string;
  hint: string;
  /** base64url of iv (12 bytes) + ciphertext + GCM tag (16 bytes). */
  sealed: string;
  [key: string]: unknown;
}

const keyOf = (id: string) => createHash('sha256').update(`settings-secret-reveal:${id}`).digest();

function seal(id: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(id), iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, data, cipher.getAuthTag()]).toString('base64url');
}

function unseal(id: string, sealed: string): string | null {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 12 + 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(id), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return null;
  }
}

export async function keepForReveal(
  deps: AuthDeps,
  record: { userId: number; clientId: string; secret: string; hint: string },
): Promise<string> {
  const id = randomToken(32);
  const stored: RevealRecord = {
    userId: record.userId,
    clientId: record.clientId,
    hint: record.hint,
    sealed: seal(id, record.secret),
  };
  await deps.runtime.stores.tokenStore.upsert(MODEL, sha256Hex(id), stored, TTL_SECONDS);
  return id;
}

/** The secret behind `id` for this user and client, once; null when used, expired or not theirs. */
export async function takeReveal(
  deps: AuthDeps,
  id: string,
  userId: number,
  clientId: string,
): Promise<{ secret: string; hint: string } | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) return null;
  const store = deps.runtime.stores.tokenStore;
  const storeId = sha256Hex(id);
  const record = await store.find<RevealRecord>(MODEL, storeId);
  if (!record || record.userId !== userId || record.clientId !== clientId) return null;
  if (!(await store.consume(MODEL, storeId))) return null;
  await store.destroy(MODEL, storeId);
  const secret = unseal(id, record.sealed);
  return secret === null ? null : { secret, hint: record.hint };
}
