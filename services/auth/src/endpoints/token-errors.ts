import { OAuthError } from '../errors.ts';

/**
 * The token endpoint's errors with their fixed `error_description` (docs/client-developers.md
 * "Errors a client sees": clients may test for the exact strings). oidc-provider's own failures
 * carry a generic description and the reason in `error_detail`; `fromProviderFailure` maps them
 * onto the same table.
 */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export const tokenErrors = {
  clientIdRequired: () => new OAuthError(400, 'invalid_request', 'client_id is required'),
  unsupportedGrantType: () =>
    new OAuthError(
      400,
      'unsupported_grant_type',
      "grant_type must be 'authorization_code' or 'refresh_token'",
    ),
  clientNotFound: (headers?: Record<string, string>) =>
    new OAuthError(401, 'invalid_client', 'client_not_found', headers),
  invalidClientCredentials: (headers?: Record<string, string>) =>
    new OAuthError(401, 'invalid_client', 'invalid_client_credentials', headers),
  clientNotApproved: (headers?: Record<string, string>) =>
    new OAuthError(401, 'unauthorized_client', 'client_not_approved', headers),
  clientRejected: (headers?: Record<string, string>) =>
    new OAuthError(401, 'unauthorized_client', 'client_rejected', headers),
  codeInvalidOrExpired: () => new OAuthError(400, 'invalid_grant', 'code_invalid_or_expired'),
  redirectUriMismatch: () => new OAuthError(400, 'invalid_grant', 'redirect_uri_mismatch'),
  pkceVerificationFailed: () => new OAuthError(400, 'invalid_grant', 'pkce_verification_failed'),
  invalidRefreshToken: () => new OAuthError(400, 'invalid_grant', 'invalid_refresh_token'),
  /** RFC 8707 lets `resource` repeat; a token has one audience, so several are an invalid target. */
  severalResources: () =>
    new OAuthError(400, 'invalid_target', 'only one resource may be named in a token request'),
};

const PKCE_DETAIL = /code_verifier|code_challenge/;
/** oidc-provider's description when redirect_uri alone is missing from a code exchange. */
const MISSING_REDIRECT_URI = "missing required parameter 'redirect_uri'";

export interface ProviderFailure {
  status: number;
  error: string;
  description: string | undefined;
  /** oidc-provider's `error_detail`: the specific reason. */
  detail: string | undefined;
}

/** One documented error for whatever oidc-provider refused, given the grant type of the request. */
export function fromProviderFailure(
  failure: ProviderFailure,
  grantType: string | undefined,
  challenge?: Record<string, string>,
): OAuthError {
  const detail = failure.detail ?? '';
  const description = failure.description ?? '';
  switch (failure.error) {
    case 'invalid_client':
      return detail === 'client not found'
        ? tokenErrors.clientNotFound(challenge)
        : tokenErrors.invalidClientCredentials(challenge);
    case 'invalid_grant':
      if (grantType === 'refresh_token') return tokenErrors.invalidRefreshToken();
      if (/redirect_uri mismatch/.test(detail)) return tokenErrors.redirectUriMismatch();
      if (PKCE_DETAIL.test(detail)) return tokenErrors.pkceVerificationFailed();
      return tokenErrors.codeInvalidOrExpired();
    case 'invalid_request':
      // A malformed code_verifier (length, characters) is a wrong verifier.
      if (grantType === 'authorization_code' && /^code_verifier/.test(description)) {
        return tokenErrors.pkceVerificationFailed();
      }
      // The authorization request always names a redirect_uri: one left out differs from it
      // (invalid_grant, as Keycloak and Hydra answer; docs/decisions.md).
      if (grantType === 'authorization_code' && description === MISSING_REDIRECT_URI) {
        return tokenErrors.redirectUriMismatch();
      }
      return new OAuthError(failure.status, failure.error, description || 'request is invalid');
    case 'unsupported_grant_type':
      return tokenErrors.unsupportedGrantType();
    default:
      return new OAuthError(failure.status, failure.error, description || failure.error);
  }
}
