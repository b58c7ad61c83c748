import test from 'ava';
import * as oauth from 'oauth4webapi';
import { authorizeInBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// oauth4webapi, the strict reference client, over the OpenID Connect surface: discovery (the OpenID
// document, its default), the authorization response with `iss`, the code exchange with an ID token
// (its claims checked by the library: iss, aud, nonce, auth_time, iat, exp), userinfo, refresh and
// revocation, each through the library's own response processing.

const {
  system,
  store,
  user,
  clients: { app },
} = setUpWorld(test, {
  clients: {
    app: {
      type: 'confidential',
      scopes: ['openid', 'profile', 'email', 'BOOKING_READ'],
      redirectUris: ['http://127.0.0.1:9/strict/callback'],
    },
  },
});

const insecure = { [oauth.allowInsecureRequests]: true } as const;

test('discovery, authorization response with iss, code with ID token, userinfo, refresh, revocation', async (t) => {
  const issuer = new URL(system.config.appUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  t.is(as.issuer, system.config.appUrl);
  t.true(as.authorization_response_iss_parameter_supported);
  const client: oauth.Client = { client_id: app.client.id };
  const auth = oauth.ClientSecretPost(app.secret!);

  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: app.client.id,
    redirect_uri: app.redirectUri,
    response_type: 'code',
    scope: 'openid profile email BOOKING_READ',
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  if (outcome.kind !== 'redirect') throw new Error('the flow stopped at a page');

  const params = oauth.validateAuthResponse(as, client, outcome.url, state);
  const codeResponse = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    auth,
    params,
    app.redirectUri,
    verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
  t.is(tokens.token_type, 'bearer');
  t.is(tokens.scope, 'openid profile email BOOKING_READ');
  const claims = oauth.getValidatedIdTokenClaims(tokens)!;
  t.is(claims.sub, String(user.id));
  t.is(claims.aud, app.client.id);
  t.is(claims.iss, system.config.appUrl);
  t.is(claims.nonce, nonce);
  t.is(typeof claims.auth_time, 'number');
  t.is(claims.email, user.email);

  const info = await oauth.processUserInfoResponse(
    as,
    client,
    claims.sub,
    await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
  );
  t.is(info.sub, String(user.id));
  t.is(info.email, user.email);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
  );
  t.is(refreshed.scope, 'openid profile email BOOKING_READ');
  t.is(oauth.getValidatedIdTokenClaims(refreshed)?.sub, String(user.id));

  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure),
  );
  t.is(await store().find('AccessToken', refreshed.access_token), undefined, 'revoking ends the grant');
});

test('validateAuthResponse refuses a response whose iss is not the issuer', (t) => {
  const as: oauth.AuthorizationServer = {
    issuer: system.config.appUrl,
    authorization_response_iss_parameter_supported: true,
  };
  const forged = new URL(
    `${app.redirectUri}?code=abc&state=s&iss=${encodeURIComponent('https://evil.example')}`,
  );
  t.throws(() => oauth.validateAuthResponse(as, { client_id: app.client.id }, forged, 's'));
});
