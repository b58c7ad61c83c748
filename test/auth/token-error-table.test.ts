import test from 'ava';
import { errors } from 'oidc-provider';
import { fromProviderFailure } from '../../services/auth/src/endpoints/token-errors.ts';

// Every failure oidc-provider can answer at our token endpoint (after our own checks of client_id,
// grant_type, rate limit, client, secret and approval), mapped to the documented table
// (docs/client-developers.md "Errors a client sees"): status, error, error_description. Built from
// the library's own error classes and details.

type Row = [
  title: string,
  error: InstanceType<typeof errors.OIDCProviderError>,
  grantType: string,
  expected: [number, string, string],
];

const pkce = (message: string) => new errors.InvalidGrant({ cause: new Error(message) } as never);
const codeRows: Row[] = [
  [
    'code not found',
    new errors.InvalidGrant('authorization code not found'),
    'authorization_code',
    [400, 'invalid_grant', 'code_invalid_or_expired'],
  ],
  [
    'code expired',
    new errors.InvalidGrant('authorization code is expired'),
    'authorization_code',
    [400, 'invalid_grant', 'code_invalid_or_expired'],
  ],
  [
    'code consumed',
    new errors.InvalidGrant('authorization code already consumed'),
    'authorization_code',
    [400, 'invalid_grant', 'code_invalid_or_expired'],
  ],
  [
    "another client's code",
    new errors.InvalidGrant('client mismatch'),
    'authorization_code',
    [400, 'invalid_grant', 'code_invalid_or_expired'],
  ],
  [
    'grant gone',
    new errors.InvalidGrant('grant not found'),
    'authorization_code',
    [400, 'invalid_grant', 'code_invalid_or_expired'],
  ],
  [
    'redirect_uri',
    new errors.InvalidGrant('authorization code redirect_uri mismatch'),
    'authorization_code',
    [400, 'invalid_grant', 'redirect_uri_mismatch'],
  ],
  [
    'verifier missing',
    pkce('code_verifier must be provided'),
    'authorization_code',
    [400, 'invalid_grant', 'pkce_verification_failed'],
  ],
  [
    'verifier wrong',
    pkce('code_verifier does not match code_challenge'),
    'authorization_code',
    [400, 'invalid_grant', 'pkce_verification_failed'],
  ],
  [
    'redirect_uri left out (the authorization request always names one)',
    new errors.InvalidRequest("missing required parameter 'redirect_uri'"),
    'authorization_code',
    [400, 'invalid_grant', 'redirect_uri_mismatch'],
  ],
  [
    'verifier malformed',
    new errors.InvalidRequest('code_verifier must be a string with a minimum length of 43 characters'),
    'authorization_code',
    [400, 'invalid_grant', 'pkce_verification_failed'],
  ],
];
const refreshRows: Row[] = [
  [
    'refresh token not found',
    new errors.InvalidGrant('refresh token not found'),
    'refresh_token',
    [400, 'invalid_grant', 'invalid_refresh_token'],
  ],
  [
    'refresh token expired',
    new errors.InvalidGrant('refresh token is expired'),
    'refresh_token',
    [400, 'invalid_grant', 'invalid_refresh_token'],
  ],
  [
    'refresh token used',
    new errors.InvalidGrant('refresh token already used'),
    'refresh_token',
    [400, 'invalid_grant', 'invalid_refresh_token'],
  ],
  [
    "another client's refresh token",
    new errors.InvalidGrant('client mismatch'),
    'refresh_token',
    [400, 'invalid_grant', 'invalid_refresh_token'],
  ],
  [
    'grant revoked',
    new errors.InvalidGrant('grant not found'),
    'refresh_token',
    [400, 'invalid_grant', 'invalid_refresh_token'],
  ],
];
const clientRows: Row[] = [
  [
    'client not found',
    new errors.InvalidClientAuth('client not found'),
    'refresh_token',
    [401, 'invalid_client', 'client_not_found'],
  ],
  [
    'invalid secret',
    new errors.InvalidClientAuth('invalid secret provided'),
    'authorization_code',
    [401, 'invalid_client', 'invalid_client_credentials'],
  ],
  [
    'auth method mismatch',
    new errors.InvalidClientAuth(
      'the provided authentication mechanism does not match the registered client authentication method',
    ),
    'authorization_code',
    [401, 'invalid_client', 'invalid_client_credentials'],
  ],
  [
    'grant type',
    new errors.UnsupportedGrantType(),
    'refresh_token',
    [400, 'unsupported_grant_type', "grant_type must be 'authorization_code' or 'refresh_token'"],
  ],
];

for (const [title, error, grantType, [status, code, description]] of [
  ...codeRows,
  ...refreshRows,
  ...clientRows,
]) {
  test(`${grantType}, ${title}: ${status} ${code} "${description}"`, (t) => {
    const mapped = fromProviderFailure(
      {
        status: error.status,
        error: error.error,
        description: error.error_description,
        detail: (error as { error_detail?: string }).error_detail,
      },
      grantType,
    );
    t.is(mapped.status, status);
    t.is(mapped.code, code);
    t.is(mapped.message, description);
  });
}
