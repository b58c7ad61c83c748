import { createHash, randomBytes } from 'node:crypto';
import { CredentialsRefusedError, type OAuthCredentials, ProviderUnavailableError } from '../connector.ts';

/**
 * The token endpoint of an OAuth provider our server is the client of (Google, Microsoft):
 * the authorization-code exchange with the PKCE verifier (RFC 6749 §4.1.3, RFC 7636) and the
 * refresh (RFC 6749 §6). The client authenticates with client_secret_post, which both accept.
 * Refusals: `invalid_grant` (a revoked or expired refresh token, a used code) and the errors
 * asking the user to sign in again are CredentialsRefusedError, which marks the connection
 * needs_reauth; anything else that keeps us from a token (5xx, timeouts, a body that is not a
 * token response) is ProviderUnavailableError.
 */

/** fetch-compatible: the outbound module's fetch in production (shared/kit/src/outbound.ts). */
export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

export interface TokenClient {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Microsoft wants the scopes again on each token request; Google does not. */
  scope?: string;
  /**
   * Scopes the code exchange's answer must list when it lists any (Google lets the user untick
   * some on its consent screen): a connection without them could not read free/busy or write.
   */
  requiredScopes?: readonly string[];
}

/**
 * The user granted only part of what was asked (granular consent): nothing is connected, since the
 * connection would silently miss busy times or fail every write.
 */
export class ScopesNotGrantedError extends Error {
  override name = 'ScopesNotGrantedError';
}

/**
 * Token-endpoint errors only the user can end: the grant is gone (`invalid_grant`), or the
 * provider wants them to sign in or consent again (OpenID Connect's `interaction_required`,
 * `login_required`, `consent_required`: Microsoft's answer once a new MFA or consent policy
 * applies). Retrying cannot help; the connection needs reconnecting.
 */
const USER_ACTION_ERRORS = new Set([
  'invalid_grant',
  'interaction_required',
  'login_required',
  'consent_required',
]);

/** Refresh this long before the provider's expiry, so no request goes out with a dying token. */
export const REFRESH_MARGIN_MS = 60_000;

/** A PKCE pair (RFC 7636, S256): the verifier stays with us, the challenge goes to the provider. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface TokenResponse {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  error?: unknown;
}

async function tokenRequest(
  fetchOut: Fetch,
  client: TokenClient,
  params: Record<string, string>,
  providerName: string,
): Promise<TokenResponse> {
  const body = new URLSearchParams({
    ...params,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...(client.scope ? { scope: client.scope } : {}),
  });
  let response: Response;
  try {
    response = await fetchOut(client.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    });
  } catch (error) {
    throw new ProviderUnavailableError(`${providerName} token endpoint unreachable`, { cause: error });
  }
  const json = (await response.json().catch(() => ({}))) as TokenResponse;
  if (response.ok) return json;
  if (typeof json.error === 'string' && USER_ACTION_ERRORS.has(json.error))
    throw new CredentialsRefusedError(`${providerName} refused the grant (${json.error})`);
  throw new ProviderUnavailableError(
    `${providerName} token endpoint answered ${response.status}${typeof json.error === 'string' ? ` (${json.error})` : ''}`,
  );
}

function credentialsOf(
  json: TokenResponse,
  previousRefreshToken: string | undefined,
  now: number,
  providerName: string,
): OAuthCredentials {
  const refreshToken = typeof json.refresh_token === 'string' ? json.refresh_token : previousRefreshToken;
  const expiresIn = Number(json.expires_in);
  if (typeof json.access_token !== 'string' || json.access_token === '' || !refreshToken)
    throw new ProviderUnavailableError(
      `${providerName} token response without ${typeof json.access_token === 'string' ? 'a refresh token (offline access)' : 'an access token'}`,
    );
  return {
    accessToken: json.access_token,
    refreshToken,
    // A response without expires_in: assume an hour, the lifetime both providers use.
    expiresAt: new Date(
      now + (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600) * 1000,
    ).toISOString(),
  };
}

/** The callback's code, exchanged with the PKCE verifier and the same redirect URI. */
export async function exchangeCode(
  fetchOut: Fetch,
  client: TokenClient,
  params: { code: string; codeVerifier: string; redirectUri: string },
  providerName: string,
  now = Date.now(),
): Promise<OAuthCredentials> {
  const json = await tokenRequest(
    fetchOut,
    client,
    {
      grant_type: 'authorization_code',
      code: params.code,
      code_verifier: params.codeVerifier,
      redirect_uri: params.redirectUri,
    },
    providerName,
  );
  // RFC 6749 §5.1: an answer without `scope` granted what was asked.
  if (typeof json.scope === 'string' && client.requiredScopes) {
    const granted = new Set(json.scope.split(' '));
    const missing = client.requiredScopes.filter((scope) => !granted.has(scope));
    if (missing.length > 0)
      throw new ScopesNotGrantedError(`${providerName} access granted without ${missing.join(', ')}`);
  }
  return credentialsOf(json, undefined, now, providerName);
}

/** New credentials from the refresh token (kept when the provider does not rotate it). */
export async function refreshCredentials(
  fetchOut: Fetch,
  client: TokenClient,
  credentials: OAuthCredentials,
  providerName: string,
  now = Date.now(),
): Promise<OAuthCredentials> {
  const json = await tokenRequest(
    fetchOut,
    client,
    { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
    providerName,
  );
  return credentialsOf(json, credentials.refreshToken, now, providerName);
}
