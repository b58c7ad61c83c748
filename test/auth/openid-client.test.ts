import test from 'ava';
import * as client from 'openid-client';
import { authorizeInBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import type { TestClient } from '../support/factories.ts';

// The whole flow driven by openid-client 6 (the reference relying-party library): discovery,
// authorization URL, code exchange, refresh and revocation, for a confidential and a public client.

const {
  system,
  store,
  user,
  clients: { confidential, publicClient },
} = setUpWorld(test, {
  clients: {
    confidential: {
      type: 'confidential',
      scopes: ['PROFILE_READ', 'BOOKING_READ'],
      redirectUris: ['http://127.0.0.1:9/confidential/callback'],
    },
    publicClient: {
      type: 'public',
      scopes: ['EVENT_TYPE_READ'],
      redirectUris: ['http://127.0.0.1:9/public/callback'],
    },
  },
});

async function discover(testClient: TestClient): Promise<client.Configuration> {
  const auth = testClient.secret === null ? client.None() : client.ClientSecretPost(testClient.secret);
  return client.discovery(new URL(system.url), testClient.client.id, undefined, auth, {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
}

/** Builds the authorization URL with openid-client, runs the browser part, returns the callback URL. */
async function authorize(config: client.Configuration, testClient: TestClient, scope: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: testClient.redirectUri,
    scope,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  if (outcome.kind !== 'redirect') throw new Error(`flow stopped at a page: ${outcome.html}`);
  return { callback: outcome.url, verifier, state };
}

test('discovery finds the RFC 8414 metadata with the configured endpoints, jwks_uri and the OIDC scopes', async (t) => {
  const config = await discover(confidential);
  const metadata = config.serverMetadata();
  t.is(metadata.issuer, system.config.appUrl);
  t.is(metadata.authorization_endpoint, `${system.url}/auth/oauth2/authorize`);
  t.is(metadata.token_endpoint, `${system.url}/v2/auth/oauth2/token`);
  t.is(metadata.revocation_endpoint, `${system.url}/v2/auth/oauth2/revoke`);
  t.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
  t.deepEqual(metadata.response_types_supported, ['code']);
  t.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  t.true(metadata.authorization_response_iss_parameter_supported);
  t.is(metadata.jwks_uri, `${system.url}/v2/auth/oauth2/jwks`);
  // OpenID-only members stay in the OpenID document (test/auth/oidc.test.ts).
  t.false('userinfo_endpoint' in metadata);
  t.false('id_token_signing_alg_values_supported' in metadata);
  t.true(metadata.scopes_supported?.includes('openid'));
  t.true(metadata.scopes_supported?.includes('PROFILE_READ'));

  const openid = await fetch(`${system.url}/.well-known/openid-configuration`);
  t.is(openid.status, 200);
});

test('confidential client: authorization URL, code exchange, refresh and revocation', async (t) => {
  const config = await discover(confidential);
  const { callback, verifier, state } = await authorize(config, confidential, 'PROFILE_READ BOOKING_READ');
  t.is(callback.searchParams.get('iss'), system.config.appUrl);

  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  t.is(tokens.token_type, 'bearer');
  t.is(tokens.expires_in, 1800);
  t.is(tokens.scope, 'PROFILE_READ BOOKING_READ');
  t.truthy(tokens.refresh_token);
  t.is(tokens.id_token, undefined);

  const record = await store().find('AccessToken', tokens.access_token);
  t.is(record?.accountId, String(user.user.id));
  t.is(record?.clientId, confidential.client.id);
  t.is(record?.scope, 'PROFILE_READ BOOKING_READ');
  t.deepEqual(record?.extra, { legacy: false });

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  t.is(refreshed.scope, 'PROFILE_READ BOOKING_READ');
  t.not(refreshed.refresh_token, tokens.refresh_token);
  t.not(refreshed.access_token, tokens.access_token);
  t.truthy(await store().find('AccessToken', refreshed.access_token));

  await client.tokenRevocation(config, refreshed.refresh_token!);
  t.is(
    await store().find('AccessToken', refreshed.access_token),
    undefined,
    'revoking the refresh token ends the grant',
  );
  t.is(await store().find('AccessToken', tokens.access_token), undefined);
  await t.throwsAsync(client.refreshTokenGrant(config, refreshed.refresh_token!), {
    instanceOf: client.ResponseBodyError,
  });
});

test('public client with PKCE: code exchange, refresh and revocation without a secret', async (t) => {
  const config = await discover(publicClient);
  const { callback, verifier, state } = await authorize(config, publicClient, 'EVENT_TYPE_READ');

  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  t.is(tokens.scope, 'EVENT_TYPE_READ');
  t.truthy(tokens.refresh_token);

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  t.is(refreshed.scope, 'EVENT_TYPE_READ');

  await client.tokenRevocation(config, refreshed.access_token);
  t.is(await store().find('AccessToken', refreshed.access_token), undefined);
});

test('openid-client rejects a callback whose state does not match', async (t) => {
  const config = await discover(confidential);
  const { callback, verifier } = await authorize(config, confidential, 'PROFILE_READ');
  await t.throwsAsync(
    client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'other' }),
  );
});
