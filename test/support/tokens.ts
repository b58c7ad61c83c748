import { randomBytes } from 'node:crypto';
import type { Stores } from '@sched/db/stores';
import { taggedTokenId } from '@sched/db/token-store/keys';
import type { AccessTokenPayload, TokenStore } from '@sched/db/token-store/types';

export interface TestAccessTokenOptions {
  userId: number;
  /** Granted scopes (space-separated in the record). */
  scopes?: readonly string[];
  /** Issued to a legacy client: scopes are not enforced (`extra.legacy`). */
  legacy?: boolean;
  clientId?: string;
  grantId?: string;
  /** Seconds until expiry (default 1800); zero or negative makes an already expired token. */
  expiresIn?: number;
  /** The audience (RFC 8707 resource) it was issued for; none by default, as without `resource`. */
  audience?: string;
}

/**
 * Writes an OAuth access-token record the way the authorization server does (model
 * `AccessToken`, id = the opaque token value; docs/token-store.md) and returns the token. Like a
 * real token, it belongs to an existing client: one is created (owned by the user) if missing,
 * since the API refuses tokens of deleted clients.
 */
export async function createTestAccessToken(
  stores: Pick<Stores, 'tokenStore' | 'db'>,
  options: TestAccessTokenOptions,
): Promise<string> {
  const clientId = options.clientId ?? 'test-client';
  await stores.db
    .knex('oauth_clients')
    .insert({ id: clientId, owner_user_id: options.userId, name: 'Test client', review_status: 'APPROVED' })
    .onConflict('id')
    .ignore();
  const grantId = options.grantId ?? randomBytes(16).toString('base64url');
  // As the auth service mints them: the grant's hash tag in the value (docs/token-store.md).
  const token = taggedTokenId(randomBytes(32).toString('base64url'), grantId);
  const iat = Math.floor(Date.now() / 1000);
  const expiresIn = options.expiresIn ?? 1800;
  const payload: AccessTokenPayload = {
    kind: 'AccessToken',
    jti: token,
    accountId: String(options.userId),
    clientId,
    scope: (options.scopes ?? []).join(' '),
    iat,
    exp: iat + expiresIn,
    grantId,
    gty: 'authorization_code',
    extra: { legacy: options.legacy ?? false },
    ...(options.audience === undefined ? {} : { aud: options.audience }),
  };
  await stores.tokenStore.upsert('AccessToken', token, payload, expiresIn);
  return token;
}

/**
 * Interleaves deterministically with a sign-in: when the token store is about to save the next
 * browser Session of `accountId` (the sign-in has checked the password by then), `meanwhile` runs
 * to its end, and only then is the session saved. Once; `ran` settles with what `meanwhile`
 * returned; `restore` unhooks the store (call it in a `finally`).
 */
export function beforeNextSessionSave<T>(
  store: TokenStore,
  accountId: string,
  meanwhile: () => Promise<T>,
): { ran: Promise<T>; restore(): void } {
  const upsert = store.upsert;
  let settle!: { resolve(value: T): void; reject(error: unknown): void };
  const ran = new Promise<T>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let armed = true;
  store.upsert = async (model, id, payload, expiresIn) => {
    if (armed && model === 'Session' && payload.accountId === accountId) {
      armed = false;
      try {
        settle.resolve(await meanwhile());
      } catch (error) {
        settle.reject(error);
      }
    }
    return upsert.call(store, model, id, payload, expiresIn);
  };
  return {
    ran,
    restore: () => {
      store.upsert = upsert;
    },
  };
}
