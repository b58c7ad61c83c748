import type { TokenStore } from '@sched/db/token-store/types';
import { memoized } from '@sched/kit/memoized';
import { countSignInFailure } from '@sched/kit/metrics';
import { sha256Hex } from '@sched/kit/secrets';
import { type Limit, rateLimited } from '@sched/runtime/rate-limit';

/**
 * Counters of the authorization server's limits (their figures: `config.rateLimits`, from
 * `@sched/kit/rate-limits` and RATE_LIMITS). Request limits count every request; sign-in limits
 * count failed attempts only and, once reached, lock the account or address until the window ends
 * (a correct password does not get through a lock either, so guessing stays bounded).
 */

/**
 * Counter keys: identifiers that may be personal (e-mails) are hashed. The per-client keys are
 * counted on every token, revocation and introspection request: built once per client (a bounded
 * memo, so a flood of made-up client ids cannot grow it) instead of a hash and two strings each.
 */
const clientKey = (kind: string) =>
  memoized((clientId: string) => `${kind}:client:${sha256Hex(clientId).slice(0, 32)}`, 4096);

export const rateKeys = {
  tokenClient: clientKey('token'),
  revokeClient: clientKey('revoke'),
  introspectClient: clientKey('introspect'),
  signInAccount: (email: string) => `signin:account:${sha256Hex(email.trim().toLowerCase()).slice(0, 32)}`,
  signInIp: (ip: string) => `signin:ip:${ip}`,
  signUpIp: (ip: string) => `signup:ip:${ip}`,
  passwordResetIp: (ip: string) => `password-reset:ip:${ip}`,
};

/** Token-store model of sign-in locks: id = SHA-256 of the counter key, expiring with the window. */
export const LOCK_MODEL = 'SignInLock';

/** Throws RateLimitedError while `key` is locked by too many failures. */
export async function assertNotLocked(store: TokenStore, key: string, what: string): Promise<void> {
  const lock = await store.find<{ until: number }>(LOCK_MODEL, sha256Hex(key));
  if (!lock) return;
  countSignInFailure('locked');
  throw rateLimited(Math.max(1, Math.ceil(lock.until - Date.now() / 1000)), what);
}

/** Counts one failure; the one that reaches the limit locks `key` for the rest of the window. */
export async function countFailure(store: TokenStore, key: string, limit: Limit): Promise<void> {
  const { count, resetInSeconds } = await store.hit(key, limit.windowSeconds);
  if (count >= limit.max) {
    await store.upsert(
      LOCK_MODEL,
      sha256Hex(key),
      { until: Date.now() / 1000 + resetInSeconds },
      resetInSeconds,
    );
  }
}
