import { hash, randomBytes } from 'node:crypto';
import type { RecordWrite, TokenPayload } from '@sched/db/token-store/types';

/**
 * The live grants the token-lookup scenario fills a store with: each one a Grant record, its access
 * token and its refresh token, with ids and payloads shaped as the authorization server writes them
 * (oidc-provider 9's fields under our configuration; ids `<43 base64url chars>.<8-char grant tag>`,
 * services/auth/src/provider/token-ids.ts). Ids are derived from the grant's number, so the filler
 * (Lua in Redis, SQL in Postgres) and the lookups agree on them without a list of a million ids.
 */

export const ACCESS_TOKEN_TTL_S = 30 * 60;
export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** A grant lives as long as its refresh token may (the store cuts its tokens' TTL to the grant's). */
export const GRANT_TTL_S = REFRESH_TOKEN_TTL_S;
/** Clients the grants spread over; users hold ~1.5 grants each (deploy/README.md section 8). */
export const CLIENTS = 20;

const FIRST_ACCOUNT = 100_000;

/** The account ids grants 0 .. size - 1 name: from `first` to `last`, every one. */
export function accountRange(size: number): { first: number; last: number } {
  return { first: FIRST_ACCOUNT, last: FIRST_ACCOUNT + Math.floor(((size - 1) * 2) / 3) };
}

/** Placeholders of the payload templates, replaced per grant by the fillers. */
export const PLACEHOLDERS = {
  grant: '__GRANT__',
  jti: '__JTI__',
  account: '__ACCOUNT__',
  client: '__CLIENT__',
  session: '__SESSION__',
} as const;

export interface GrantIds {
  grantId: string;
  accessTokenId: string;
  refreshTokenId: string;
  accountId: string;
  clientId: string;
  /** The browser session the grant was made in (oidc-provider: a random 21-character uid). */
  sessionUid: string;
}

/** One run's ids: a fresh seed, so two runs never share tokens. */
export function grantIdsOf(seed = randomBytes(8).toString('hex')): (index: number) => GrantIds {
  // 43 base64url characters (32 bytes), the length of oidc-provider's random ids.
  const digest = (label: string, index: number) => hash('sha256', `${seed}:${label}:${index}`, 'base64url');
  return (index) => {
    // 8 characters: the auth service's 6 random bytes of a grant tag.
    const tag = digest('tag', index).slice(0, 8);
    return {
      grantId: `${digest('grant', index)}.${tag}`,
      accessTokenId: `${digest('at', index)}.${tag}`,
      refreshTokenId: `${digest('rt', index)}.${tag}`,
      // Grant i and i + 1 often share a user (with different clients): ~1.5 grants per user.
      accountId: String(FIRST_ACCOUNT + Math.floor((index * 2) / 3)),
      clientId: `cli_${String(index % CLIENTS).padStart(4, '0')}${'k'.repeat(18)}`,
      sessionUid: digest('session', index).slice(0, 21),
    };
  };
}

/** The version keys the API reads with a known token (its owners'), as authenticate.ts does. */
export function ownerVersionKeys(ids: GrantIds): [string, string] {
  return [`user:${ids.accountId}`, `client:${ids.clientId}`];
}

const SCOPE = 'openid offline_access TEAM_MEMBERSHIP_READ BOOKINGS_READ BOOKINGS_WRITE';
const RESOURCE = 'https://sched.example.com';

/** The three records of one grant, as the auth service hands them to the store. */
export function grantRecords(ids: GrantIds, nowSeconds: number): RecordWrite[] {
  const { grantId, accessTokenId, refreshTokenId, accountId, clientId, sessionUid } = ids;
  const grant: TokenPayload = {
    iat: nowSeconds,
    exp: nowSeconds + GRANT_TTL_S,
    accountId,
    clientId,
    kind: 'Grant',
    jti: grantId,
    openid: { scope: 'openid offline_access' },
    resources: { [RESOURCE]: 'TEAM_MEMBERSHIP_READ BOOKINGS_READ BOOKINGS_WRITE' },
  };
  const accessToken: TokenPayload = {
    iat: nowSeconds,
    exp: nowSeconds + ACCESS_TOKEN_TTL_S,
    accountId,
    aud: RESOURCE,
    clientId,
    expiresWithSession: false,
    extra: { legacy: false },
    grantId,
    gty: 'authorization_code',
    jti: accessTokenId,
    kind: 'AccessToken',
    scope: SCOPE,
    sessionUid,
  };
  const refreshToken: TokenPayload = {
    iat: nowSeconds,
    exp: nowSeconds + REFRESH_TOKEN_TTL_S,
    accountId,
    authTime: nowSeconds - 5,
    clientId,
    expiresWithSession: false,
    grantId,
    gty: 'authorization_code',
    iiat: nowSeconds,
    jti: refreshTokenId,
    kind: 'RefreshToken',
    resource: RESOURCE,
    rotations: 0,
    scope: SCOPE,
    sessionUid,
  };
  return [
    { model: 'Grant', id: grantId, payload: grant, expiresInSeconds: GRANT_TTL_S },
    { model: 'AccessToken', id: accessTokenId, payload: accessToken, expiresInSeconds: ACCESS_TOKEN_TTL_S },
    {
      model: 'RefreshToken',
      id: refreshTokenId,
      payload: refreshToken,
      expiresInSeconds: REFRESH_TOKEN_TTL_S,
    },
  ];
}

/** The stored payload JSON of each model, with placeholders for the per-grant strings (PLACEHOLDERS). */
export function payloadTemplates(nowSeconds: number): {
  Grant: string;
  AccessToken: string;
  RefreshToken: string;
} {
  const ids: GrantIds = {
    grantId: PLACEHOLDERS.grant,
    accessTokenId: PLACEHOLDERS.jti,
    refreshTokenId: PLACEHOLDERS.jti,
    accountId: PLACEHOLDERS.account,
    clientId: PLACEHOLDERS.client,
    sessionUid: PLACEHOLDERS.session,
  };
  // As stored: a token's payload holds no `jti` (docs/token-store.md "Hashed ids").
  const [grant, accessToken, refreshToken] = grantRecords(ids, nowSeconds).map(({ model, payload }) => {
    if (model === 'Grant') return JSON.stringify(payload);
    const { jti: _jti, ...stored } = payload;
    return JSON.stringify(stored);
  });
  return { Grant: grant!, AccessToken: accessToken!, RefreshToken: refreshToken! };
}
