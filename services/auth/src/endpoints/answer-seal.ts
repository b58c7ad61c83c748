import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { constantTimeEqual } from '@sched/kit/secrets';

/**
 * How the refresh retry window keeps its answers encrypted (refresh-window.ts):
 * AES-256-CTR, then HMAC-SHA256 over the result (encrypt-then-MAC), under keys derived with
 * HKDF-SHA256 from each of `COOKIE_KEYS` (own salt and info, so no other use of those keys shares
 * them). The first key seals; every key opens (rotation as for cookies).
 *
 * Why not AES-256-GCM per answer, as until 2026-11-27: a GCM seal builds a cipher and three Buffers
 * with off-heap stores of their own (the ciphertext, the empty final block, the tag), about 11 µs
 * of CPU with their garbage collection, 3% of a refresh. CTR's keystream does not depend on the
 * text, so it is drawn ahead, 16 KiB at a time under a fresh random 96-bit nonce, and each answer is
 * XORed with a block-aligned slice that is handed out once. The sealed text names the nonce and the
 * first block, so the opener makes the same slice again. The MAC covers them, the ciphertext, and
 * what the answer is bound to (the model, the refresh token, the client): an answer moved to
 * another record, or presented by another client, does not open. About 3 µs a seal.
 *
 * Sealed text: base64url(nonce (12 bytes) | first block (uint32, big-endian) | ciphertext), a dot,
 * base64url(HMAC). Answers sealed with GCM by an older process (no dot) still open, so a retry
 * during a rolling upgrade finds what the previous version kept.
 */

const SALT = 'sched:auth:refresh-retry-window';
const NONCE_BYTES = 12;
const HEADER_BYTES = NONCE_BYTES + 4;
const BLOCK_BYTES = 16;
/** Keystream drawn per call to the cipher: about 40 answers (one off-heap Buffer for all of them). */
const CHUNK_BLOCKS = 1024;
const ZEROS = Buffer.alloc(CHUNK_BLOCKS * BLOCK_BYTES);

interface AnswerKeys {
  encryption: KeyObject;
  mac: KeyObject;
  /** Opens answers sealed with AES-256-GCM before 2026-11-27. */
  legacyGcm: KeyObject;
}

function deriveKeys(cookieKey: string): AnswerKeys {
  const derive = (info: string) =>
    createSecretKey(Buffer.from(hkdfSync('sha256', cookieKey, SALT, info, 32)));
  return {
    encryption: derive('aes-256-ctr answer key'),
    mac: derive('hmac-sha256 answer key'),
    legacyGcm: derive('aes-256-gcm answer key'),
  };
}

/** The counter block of keystream block `block` under `nonce`: nonce | block, big-endian. */
function counterBlock(nonce: Uint8Array, block: number): Buffer {
  const iv = Buffer.alloc(BLOCK_BYTES);
  iv.set(nonce);
  iv.writeUInt32BE(block, NONCE_BYTES);
  return iv;
}

/** AES-256-CTR keystream, drawn ahead; every byte is handed out once. */
class Keystream {
  readonly #key: KeyObject;
  #nonce = Buffer.alloc(0);
  #chunk = Buffer.alloc(0);
  #nextBlock = 0;

  constructor(key: KeyObject) {
    this.#key = key;
  }

  /** `length` bytes of keystream, from a block no one was given before, and where they start. */
  take(length: number): { stream: Buffer; nonce: Buffer; block: number } {
    const blocks = Math.ceil(length / BLOCK_BYTES);
    if ((this.#nextBlock + blocks) * BLOCK_BYTES > this.#chunk.length) this.#draw(blocks);
    const block = this.#nextBlock;
    this.#nextBlock += blocks;
    const start = block * BLOCK_BYTES;
    return { stream: this.#chunk.subarray(start, start + length), nonce: this.#nonce, block };
  }

  /** A new chunk under a new random nonce (a nonce is never used for a second chunk). */
  #draw(atLeastBlocks: number): void {
    const blocks = Math.max(CHUNK_BLOCKS, atLeastBlocks);
    this.#nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-ctr', this.#key, counterBlock(this.#nonce, 0));
    this.#chunk = cipher.update(blocks === CHUNK_BLOCKS ? ZEROS : Buffer.alloc(blocks * BLOCK_BYTES));
    this.#nextBlock = 0;
  }
}

export class AnswerSeal {
  readonly #keys: AnswerKeys[];
  readonly #keystream: Keystream | undefined;

  constructor(cookieKeys: readonly string[]) {
    this.#keys = cookieKeys.map(deriveKeys);
    this.#keystream = this.#keys[0] && new Keystream(this.#keys[0].encryption);
  }

  get usable(): boolean {
    return this.#keystream !== undefined;
  }

  /** `plain` sealed and bound to `binding` (which the opener must present again). */
  seal(plain: string, binding: string): string {
    if (!this.#keystream) throw new Error('the refresh retry window needs COOKIE_KEYS');
    const length = Buffer.byteLength(plain, 'utf8');
    // Under 4 KiB, allocUnsafe takes Node's shared pool: no off-heap store of its own.
    const bytes = Buffer.allocUnsafe(HEADER_BYTES + length);
    bytes.write(plain, HEADER_BYTES, 'utf8');
    const { stream, nonce, block } = this.#keystream.take(length);
    bytes.set(nonce, 0);
    bytes.writeUInt32BE(block, NONCE_BYTES);
    for (let i = 0; i < length; i++) bytes[HEADER_BYTES + i]! ^= stream[i]!;
    const body = bytes.toString('base64url');
    return `${body}.${mac(this.#keys[0]!.mac, binding, body)}`;
  }

  /** The plain text, if `sealed` opens under one of the keys for `binding`; else undefined. */
  open(sealed: string, binding: string): string | undefined {
    const dot = sealed.indexOf('.');
    if (dot < 0) return undefined;
    const body = sealed.slice(0, dot);
    const tag = sealed.slice(dot + 1);
    const key = this.#keys.find((k) => constantTimeEqual(mac(k.mac, binding, body), tag));
    if (!key) return undefined;
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length < HEADER_BYTES) return undefined;
    const iv = counterBlock(bytes.subarray(0, NONCE_BYTES), bytes.readUInt32BE(NONCE_BYTES));
    return createCipheriv('aes-256-ctr', key.encryption, iv)
      .update(bytes.subarray(HEADER_BYTES))
      .toString('utf8');
  }

  /**
   * An answer sealed with AES-256-GCM (base64url of IV, ciphertext, tag), under any of the keys,
   * with `additionalData` when it was sealed with some; undefined when none opens it.
   */
  openLegacy(sealed: string, additionalData: Buffer | undefined): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= LEGACY_IV_BYTES + LEGACY_TAG_BYTES) return undefined;
    const iv = bytes.subarray(0, LEGACY_IV_BYTES);
    const tag = bytes.subarray(bytes.length - LEGACY_TAG_BYTES);
    const body = bytes.subarray(LEGACY_IV_BYTES, bytes.length - LEGACY_TAG_BYTES);
    for (const { legacyGcm } of this.#keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', legacyGcm, iv);
        if (additionalData) decipher.setAAD(additionalData);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        // Another key, or not ours: try the next key.
      }
    }
    return undefined;
  }
}

const LEGACY_IV_BYTES = 12;
const LEGACY_TAG_BYTES = 16;

/** HMAC-SHA256 of the binding and the sealed body, as base64url text (no Buffer made). */
function mac(key: KeyObject, binding: string, body: string): string {
  return createHmac('sha256', key).update(binding).update('\n').update(body).digest('base64url');
}
