import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `bytes` random bytes as base64url (no padding): 32 bytes -> 43 characters. */
export function randomToken(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 1024) {
    throw new RangeError('randomToken: bytes must be an integer between 1 and 1024');
  }
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 of a string (UTF-8) or bytes, as 64 lowercase hex characters. The one-shot `hash` returns
 * the text straight from native code: no Hash object, and no Buffer.
 */
export function sha256Hex(value: string | Uint8Array): string {
  return hash('sha256', value, 'hex');
}

/**
 * SHA-256 of a string (UTF-8) or bytes, as 32 bytes for `timingSafeEqual`. Decoded from the hex text
 * into Node's shared small-buffer pool: `digest()` returns a Buffer with an off-heap store of its
 * own, which cost about 3 µs of CPU each (allocation, external-memory accounting and sweeping;
 * docs/performance.md), on every client authentication.
 */
export function sha256Bytes(value: string | Uint8Array): Buffer {
  return Buffer.from(sha256Hex(value), 'hex');
}

/**
 * Compares two strings in time that depends on neither their content nor where they differ:
 * both are hashed first, so different lengths are fine and leak nothing beyond the hashing time.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256Bytes(a), sha256Bytes(b));
}

export interface NewSecret {
  /** Shown to its owner once; never stored. */
  plain: string;
  /** sha256Hex(plain): what the database keeps and looks up by. */
  hash: string;
  /** Last 4 characters of `plain`, to tell keys apart in lists (`****a1b2`). */
  hint: string;
}

/**
 * A high-entropy secret (`prefix` + `bytes` random bytes as base64url). High entropy is what makes
 * a plain SHA-256 a safe way to store it: there is nothing to guess, so no slow hash is needed.
 */
export function newSecret(prefix = '', bytes = 32): NewSecret {
  if (bytes < 32) throw new RangeError('newSecret: at least 32 random bytes');
  const plain = prefix + randomToken(bytes);
  return { plain, hash: sha256Hex(plain), hint: plain.slice(-4) };
}

export const API_KEY_PREFIX = 'svc_';

/** An API key: `svc_` + 32 random bytes (base64url, 43 characters). */
export const newApiKey = (): NewSecret => newSecret(API_KEY_PREFIX, 32);

/** An OAuth client secret: 32 random bytes (base64url); no prefix, as RFC 6749 clients expect. */
export const newClientSecret = (): NewSecret => newSecret('', 32);

/** The masked form of a hint shown in lists and responses (`****a1b2`). */
export const maskedHint = (hint: string): string => `****${hint}`;
