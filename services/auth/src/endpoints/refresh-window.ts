import type { RecordRef, RecordWrite, TokenPayload } from '@sched/db/token-store/types';
import { AnswerSeal } from './answer-seal.ts';

/**
 * The refresh retry window (`REFRESH_REUSE_INTERVAL`, docs/decisions.md "Refresh retry window"):
 * when a refresh succeeds, its answer is kept, encrypted, under the consumed refresh token's id for
 * the window's length, written in the same atomic store step that consumes the token. A retry by
 * the same client within the window (a lost response, or a concurrent request that lost the race)
 * gets that answer back instead of failing; another client, or a replay after the window, meets the
 * reuse detection as before.
 *
 * Encryption (answer-seal.ts): AES-256-CTR and HMAC-SHA256 under keys derived from `COOKIE_KEYS`,
 * the MAC binding the sealed answer to the refresh token and the client it answers, so it cannot
 * be moved to another record or opened for another client. The store never holds the tokens in
 * plain.
 */

/** Model of the kept answers in the token store; the id is the consumed refresh token's. */
export const KEPT_ANSWER_MODEL = 'RefreshRetry';

/** The token endpoint's success body. */
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
  /** The sealed answer (answer-seal.ts). */
  sealed: string;
}

/** What is sealed: the answer and when it was given (epoch ms), to count `expires_in` down. */
interface Sealed {
  answer: TokenAnswer;
  at: number;
}

export class RefreshWindow {
  /** Seconds; 0 = off (today's behaviour: every reuse is refused and revokes the grant). */
  readonly seconds: number;
  readonly #seal: AnswerSeal;

  constructor(seconds: number, cookieKeys: readonly string[]) {
    this.seconds = seconds;
    this.#seal = new AnswerSeal(cookieKeys);
    if (seconds > 0 && !this.#seal.usable) throw new Error('the refresh retry window needs COOKIE_KEYS');
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
    const at = Date.now();
    // An answer that does not fit the lines (not seen in practice) is kept as JSON.
    const plain = answerLines(answer, at) ?? JSON.stringify({ answer, at } satisfies Sealed);
    const sealed = this.#seal.seal(plain, binding(refreshToken, clientId));
    const payload: SealedAnswer = { kind: KEPT_ANSWER_MODEL, sealed };
    return { model: KEPT_ANSWER_MODEL, id: refreshToken, payload, expiresInSeconds: this.seconds };
  }

  /**
   * The kept answer for this client, `expires_in` counted down to what is left of the access
   * token's life; undefined when there is none, it is another client's, or it does not open.
   */
  open(refreshToken: string, clientId: string, record: TokenPayload | undefined): TokenAnswer | undefined {
    if (record?.kind !== KEPT_ANSWER_MODEL || typeof record.sealed !== 'string') return undefined;
    const kept = this.#unseal(record.sealed, refreshToken, clientId);
    return kept && { ...kept.answer, expires_in: remaining(kept.answer.expires_in, kept.at) };
  }

  #unseal(sealed: string, refreshToken: string, clientId: string): Sealed | undefined {
    if (sealed.includes('.')) {
      const plain = this.#seal.open(sealed, binding(refreshToken, clientId));
      if (plain === undefined) return undefined;
      return plain.startsWith('{') ? (JSON.parse(plain) as Sealed) : fromLines(plain);
    }
    // Sealed with AES-256-GCM by an older process: the binding inside the lines, or as additional data.
    const lines = this.#seal.openLegacy(sealed, undefined);
    if (lines !== undefined) return fromLegacyLines(lines, refreshToken, clientId);
    const json = this.#seal.openLegacy(sealed, Buffer.from(binding(refreshToken, clientId), 'utf8'));
    return json === undefined ? undefined : (JSON.parse(json) as Sealed);
  }
}

/** What a kept answer is bound to: the model, the consumed refresh token and the client. */
function binding(refreshToken: string, clientId: string): string {
  return `${KEPT_ANSWER_MODEL}\n${refreshToken}\n${clientId}`;
}

/**
 * The sealed text: one line per member of the answer (`at`, `expires_in`, `scope`, access, refresh
 * and ID token): shorter than JSON and cheaper to make. Tokens and scopes never hold a line break;
 * an answer that does not fit (a refresh without a successor refresh token, a non-numeric
 * `expires_in`: not seen in practice) gets undefined and is kept as JSON.
 */
function answerLines(answer: TokenAnswer, at: number): string | undefined {
  const { access_token, refresh_token, expires_in, scope, id_token = '' } = answer;
  if (
    typeof refresh_token !== 'string' ||
    typeof expires_in !== 'number' ||
    [scope, access_token, refresh_token, id_token].some(hasLineBreak)
  ) {
    return undefined;
  }
  return `${at}\n${expires_in}\n${scope}\n${access_token}\n${refresh_token}\n${id_token}`;
}

const hasLineBreak = (value: string) => value.includes('\n');

/** The answer kept by `answerLines`. */
function fromLines(plain: string): Sealed | undefined {
  const lines = plain.split('\n', 6);
  if (lines.length !== 6) return undefined;
  return sealedOf(lines as [string, string, string, string, string, string]);
}

/**
 * An answer sealed with AES-256-GCM by an older process: the model, the refresh token and the
 * client, then the lines of `answerLines`; only if it is bound to this refresh token and client.
 */
function fromLegacyLines(plain: string, refreshToken: string, clientId: string): Sealed | undefined {
  const lines = plain.split('\n', 9);
  const [model, boundToken, boundClient, ...members] = lines;
  if (lines.length !== 9 || model !== KEPT_ANSWER_MODEL) return undefined;
  if (boundToken !== refreshToken || boundClient !== clientId) return undefined;
  return sealedOf(members as [string, string, string, string, string, string]);
}

function sealedOf([at, expiresIn, scope, accessToken, successor, idToken]: [
  string,
  string,
  string,
  string,
  string,
  string,
]): Sealed {
  const answer: TokenAnswer = {
    access_token: accessToken,
    refresh_token: successor,
    token_type: 'bearer',
    expires_in: Number(expiresIn),
    scope,
  };
  if (idToken) answer.id_token = idToken;
  return { answer, at: Number(at) };
}

/** `expires_in` of an answer given at `at` (epoch ms), as of now: never more, never below 0. */
function remaining(expiresIn: unknown, at: number): unknown {
  if (typeof expiresIn !== 'number') return expiresIn;
  const elapsed = Math.max(0, Math.floor((Date.now() - at) / 1000));
  return Math.max(0, expiresIn - elapsed);
}
