import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomFillSync,
} from 'node:crypto';
import type { RecordRef, RecordWrite, TokenPayload } from '@sched/db/token-store/types';

/**
 * The refresh retry window (contract §13, `REFRESH_REUSE_INTERVAL`): when a refresh succeeds, its
 * answer is kept, encrypted, under the consumed refresh token's id for the window's length,
 * written in the same atomic store step that consumes the token. A retry by the same client
 * within the window (a lost response, or a concurrent request that lost the race) gets that
 * answer back instead of failing; another client, or a replay after the window, meets the reuse
 * detection as before.
 *
 * Encryption: AES-256-GCM with a key derived from each of `COOKIE_KEYS` (HKDF-SHA256, its own
 * salt and info, so no other use of those keys shares it): the first key seals, every key opens
 * (rotation as for cookies). A random 96-bit IV per answer; the sealed text starts with the refresh
 * token and the client it answers (checked on opening), so it cannot be moved to another record or
 * opened for another client. The store never holds the tokens in plain.
 */

/** Model of the kept answers in the token store; the id is the consumed refresh token's. */
export const KEPT_ANSWER_MODEL = 'RefreshRetry';

/** The token endpoint's success body (contract §6). */
export interface TokenAnswer {
  access_token: string;
  refresh_token: unknown;
  token_type: 'bearer';
  expires_in: unknown;
  scope: string;
  /** OpenID Connect, when `openid` was granted. */
  id_token?: string;
}

/**
 * What is stored: no field the store indexes (grantId, uid, userCode, accountId, clientId,
 * consumed), so the record joins no index; it lives only as long as the window.
 */
interface SealedAnswer extends TokenPayload {
  kind: typeof KEPT_ANSWER_MODEL;
  /** base64url: 12-byte IV, ciphertext, 16-byte GCM tag. */
  sealed: string;
}

/** What is sealed: the answer and when it was given (epoch ms), to count `expires_in` down (encodeSealed). */
interface Sealed {
  answer: TokenAnswer;
  at: number;
}

const SALT = 'sched:auth:refresh-retry-window';
const INFO = 'aes-256-gcm answer key';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** IVs drawn per call to the random source: one draw per this many answers instead of one each. */
const IVS_PER_DRAW = 256;

/** Random 96-bit IVs, drawn from the CSPRNG in batches (each IV is still used once). */
class IvSource {
  #pool = Buffer.alloc(0);
  #offset = 0;

  next(): Buffer {
    if (this.#offset + IV_BYTES > this.#pool.length) {
      // A fresh buffer, not a refill: IVs handed out earlier may still be referenced.
      this.#pool = randomFillSync(Buffer.allocUnsafe(IV_BYTES * IVS_PER_DRAW));
      this.#offset = 0;
    }
    const iv = this.#pool.subarray(this.#offset, this.#offset + IV_BYTES);
    this.#offset += IV_BYTES;
    return iv;
  }
}

export class RefreshWindow {
  /** Seconds; 0 = off (today's behaviour: every reuse is refused and revokes the grant). */
  readonly seconds: number;
  /** Key objects made once: a raw key given to createCipheriv is imported again on every call. */
  readonly #keys: KeyObject[];
  readonly #ivs = new IvSource();

  constructor(seconds: number, cookieKeys: readonly string[]) {
    this.seconds = seconds;
    this.#keys = cookieKeys.map((key) =>
      createSecretKey(Buffer.from(hkdfSync('sha256', key, SALT, INFO, 32))),
    );
    if (seconds > 0 && this.#keys.length === 0) throw new Error('the refresh retry window needs COOKIE_KEYS');
  }

  get on(): boolean {
    return this.seconds > 0;
  }

  /** Where the answer to the use of `refreshToken` is kept. */
  ref(refreshToken: string): RecordRef {
    return { model: KEPT_ANSWER_MODEL, id: refreshToken };
  }

  /** The record keeping `answer`, sealed, for the window: written with the token's consumption. */
  keep(refreshToken: string, clientId: string, answer: TokenAnswer): RecordWrite {
    const iv = this.#ivs.next();
    const cipher = createCipheriv('aes-256-gcm', this.#keys[0]!, iv);
    const lines = answerLines(refreshToken, clientId, answer, Date.now());
    // An answer that does not fit the lines (not seen in practice) is sealed the earlier way.
    if (lines === undefined) {
      cipher.setAAD(additionalData(refreshToken, clientId));
    }
    const plain = lines ?? JSON.stringify({ answer, at: Date.now() } satisfies Sealed);
    const body = cipher.update(plain, 'utf8');
    cipher.final(); // GCM adds no bytes at the end; it computes the tag
    const sealed = Buffer.concat([iv, body, cipher.getAuthTag()], IV_BYTES + body.length + TAG_BYTES);
    const payload: SealedAnswer = { kind: KEPT_ANSWER_MODEL, sealed: sealed.toString('base64url') };
    return { model: KEPT_ANSWER_MODEL, id: refreshToken, payload, expiresInSeconds: this.seconds };
  }

  /**
   * The kept answer for this client, `expires_in` counted down to what is left of the access
   * token's life; undefined when there is none, it is another client's, or it does not open.
   */
  open(refreshToken: string, clientId: string, record: TokenPayload | undefined): TokenAnswer | undefined {
    if (record?.kind !== KEPT_ANSWER_MODEL || typeof record.sealed !== 'string') return undefined;
    const bytes = Buffer.from(record.sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    const lines = this.#decrypt(iv, body, tag, undefined);
    if (lines !== undefined) {
      const sealed = fromLines(lines, refreshToken, clientId);
      return sealed && { ...sealed.answer, expires_in: remaining(sealed.answer.expires_in, sealed.at) };
    }
    const json = this.#decrypt(iv, body, tag, additionalData(refreshToken, clientId));
    if (json === undefined) return undefined;
    const { answer, at } = JSON.parse(json) as Sealed;
    return { ...answer, expires_in: remaining(answer.expires_in, at) };
  }

  /** The plain text, under any of the keys; undefined when none opens it (tag mismatch). */
  #decrypt(iv: Buffer, body: Buffer, tag: Buffer, aad: Buffer | undefined): string | undefined {
    for (const key of this.#keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        if (aad) decipher.setAAD(aad);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        // Another key, or not ours: try the next key.
      }
    }
    return undefined;
  }
}

/**
 * The sealed text: what it is bound to (the model, the refresh token, the client), then one line
 * per member of the answer (`at`, `expires_in`, `scope`, access, refresh and ID token). The
 * binding inside the sealed text is as strong as additional data (the GCM tag covers both) and
 * costs less: no second input to the cipher. Tokens, scopes and client ids never hold a line
 * break; an answer that does not fit (a refresh without a successor refresh token, a non-numeric
 * `expires_in`: not seen in practice) gets undefined and is sealed as JSON with the binding as
 * additional data, as every answer was before (so answers kept by an older process still open).
 */
function answerLines(refreshToken: string, clientId: string, answer: TokenAnswer, at: number) {
  const { access_token, refresh_token, expires_in, scope, id_token = '' } = answer;
  if (
    typeof refresh_token !== 'string' ||
    typeof expires_in !== 'number' ||
    [refreshToken, clientId, scope, access_token, refresh_token, id_token].some(hasLineBreak)
  ) {
    return undefined;
  }
  return `${KEPT_ANSWER_MODEL}\n${refreshToken}\n${clientId}\n${at}\n${expires_in}\n${scope}\n${access_token}\n${refresh_token}\n${id_token}`;
}

const hasLineBreak = (value: string) => value.includes('\n');
const LINES = 9;

/** The answer sealed by `answerLines`, if it is bound to this refresh token and this client. */
function fromLines(plain: string, refreshToken: string, clientId: string): Sealed | undefined {
  const lines = plain.split('\n', LINES);
  const [model, boundToken, boundClient, at, expiresIn, scope, accessToken, successor, idToken] = lines;
  if (lines.length !== LINES || model !== KEPT_ANSWER_MODEL) return undefined;
  if (boundToken !== refreshToken || boundClient !== clientId) return undefined;
  const answer: TokenAnswer = {
    access_token: accessToken!,
    refresh_token: successor,
    token_type: 'bearer',
    expires_in: Number(expiresIn),
    scope: scope!,
  };
  if (idToken) answer.id_token = idToken;
  return { answer, at: Number(at) };
}

function additionalData(refreshToken: string, clientId: string): Buffer {
  return Buffer.from(`${KEPT_ANSWER_MODEL}\n${refreshToken}\n${clientId}`, 'utf8');
}

/** `expires_in` of an answer given at `at` (epoch ms), as of now: never more, never below 0. */
function remaining(expiresIn: unknown, at: number): unknown {
  if (typeof expiresIn !== 'number') return expiresIn;
  const elapsed = Math.max(0, Math.floor((Date.now() - at) / 1000));
  return Math.max(0, expiresIn - elapsed);
}
