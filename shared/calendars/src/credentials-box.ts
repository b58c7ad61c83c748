import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { ConnectionCredentials } from './connector.ts';

/**
 * Calendar credentials at rest: AES-256-GCM under a key derived from ENCRYPTION_KEY, a fresh 96-bit
 * nonce per seal. Stored form `v1.<nonce>.<ciphertext>.<tag>` (base64url), so a database dump alone
 * reveals no password or token, and a tampered value fails to open.
 */
const VERSION = 'v1';

/** No ENCRYPTION_KEY in this process (a CLI run against Postgres): calendar credentials cannot be used. */
export class EncryptionKeyMissingError extends Error {
  override name = 'EncryptionKeyMissingError';
}

export class CredentialsBox {
  readonly #secret: Buffer | undefined;

  /** `encryptionKey` undefined: every seal/open throws EncryptionKeyMissingError (nothing else needs it). */
  constructor(encryptionKey: string | undefined) {
    if (encryptionKey !== undefined && encryptionKey.length < 32) {
      throw new RangeError('ENCRYPTION_KEY must be at least 32 characters');
    }
    // Domain-separated, so the same ENCRYPTION_KEY could key other stores without reusing this key.
    this.#secret =
      encryptionKey === undefined
        ? undefined
        : createHash('sha256').update(`sched calendar credentials\0${encryptionKey}`).digest();
  }

  get #key(): Buffer {
    if (!this.#secret) throw new EncryptionKeyMissingError('ENCRYPTION_KEY is not set in this process');
    return this.#secret;
  }

  seal(credentials: ConnectionCredentials): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    const body = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
    return [VERSION, nonce, body, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open<T extends ConnectionCredentials>(sealed: string): T {
    const [version, nonce, body, tag] = sealed.split('.');
    if (version !== VERSION || !nonce || body === undefined || !tag)
      throw new Error('unreadable sealed credentials');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(nonce, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }
}
