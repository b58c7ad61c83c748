import { createPublicKey, verify } from 'node:crypto';
import test from 'ava';
import * as client from 'openid-client';
import type { TestClient } from '../support/factories.ts';
import { authorizeInBrowser, authorizeUrl, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// OpenID Connect on top of the OAuth server, driven by openid-client 6 with its DEFAULT discovery
// (the OpenID document): code flow with PKCE, ID token (signature checked against the JWKS),
// userinfo per scope, refresh; plus the rules around it.

const {
  system,
  knex,
  user,
  clients: { oidc, publicOidc, apiOnly, profileOnly, consentOnly },
} = setUpWorld(test, {
  clients: {
    oidc: {
      type: 'confidential',
      scopes: ['openid', 'profile', 'email', 'PROFILE_READ'],
      redirectUris: ['http://127.0.0.1:9/oidc/callback'],
    },
    publicOidc: {
      type: 'public',
      scopes: ['openid', 'email'],
      redirectUris: ['http://127.0.0.1:9/public/callback'],
    },
    apiOnly: {
      type: 'confidential',
      scopes: ['PROFILE_READ'],
      redirectUris: ['http://127.0.0.1:9/api/callback'],
    },
    consentOnly: {
      type: 'confidential',
      scopes: ['openid', 'profile', 'email'],
      redirectUris: ['http://127.0.0.1:9/consent/callback'],
    },
    profileOnly: {
      type: 'confidential',
      scopes: ['openid', 'profile'],
      redirectUris: ['http://127.0.0.1:9/profile/callback'],
    },
  },
});

test.before(async () => {
  await knex()('users')
    .where({ id: user.id })
    .update({ name: 'Ada Lovelace', username: 'ada', time_zone: 'Europe/London', locale: 'en' });
});

async function discover(testClient: TestClient): Promise<client.Configuration> {
  const auth = testClient.secret === null ? client.None() : client.ClientSecretPost(testClient.secret);
  // Default discovery: the OpenID document. Non-repudiation checks verify ID-token signatures with the JWKS.
  return client.discovery(new URL(system.url), testClient.client.id, undefined, auth, {
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
  });
}

async function authorize(config: client.Configuration, testClient: TestClient, scope: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  // A nonce goes only with openid (oidc-provider refuses it otherwise).
  const nonce = scope.split(' ').includes('openid') ? client.randomNonce() : undefined;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: testClient.redirectUri,
    scope,
    state,
    ...(nonce ? { nonce } : {}),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  if (outcome.kind !== 'redirect') throw new Error(`flow stopped at a page: ${outcome.html}`);
  return { callback: outcome.url, verifier, state, nonce };
}

function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')),
  };
}

/** Verifies a JWS with the published JWKS (by kid), independently of any library. */
async function verifiesWithJwks(jwt: string): Promise<boolean> {
  const { header } = decodeJwt(jwt);
  const jwks = (await (await fetch(`${system.url}/v2/auth/oauth2/jwks`)).json()) as {
    keys: Array<Record<string, unknown>>;
  };
  const jwk = jwks.keys.find((key) => key.kid === header.kid);
  if (!jwk) return false;
  const [h, p, s] = jwt.split('.');
  const key = createPublicKey({ key: jwk as never, format: 'jwk' });
  const data = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s!, 'base64url');
  return header.alg === 'ES256'
    ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
    : verify('sha256', data, key, signature);
}

test('default discovery finds the OpenID document: endpoints, scopes, algorithms from APP_URL', async (t) => {
  const config = await discover(oidc);
  const metadata = config.serverMetadata();
  t.is(metadata.issuer, system.config.appUrl);
  t.is(metadata.authorization_endpoint, `${system.config.appUrl}/auth/oauth2/authorize`);
  t.is(metadata.token_endpoint, `${system.config.appUrl}/v2/auth/oauth2/token`);
  t.is(metadata.userinfo_endpoint, `${system.config.appUrl}/v2/auth/oauth2/userinfo`);
  t.is(metadata.jwks_uri, `${system.config.appUrl}/v2/auth/oauth2/jwks`);
  t.is(metadata.revocation_endpoint, `${system.config.appUrl}/v2/auth/oauth2/revoke`);
  for (const scope of ['openid', 'profile', 'email', 'PROFILE_READ', 'ORG_MEMBERSHIP_WRITE'])
    t.true(metadata.scopes_supported?.includes(scope), scope);
  t.deepEqual(metadata.response_types_supported, ['code']);
  t.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
  t.deepEqual(metadata.subject_types_supported, ['public']);
  t.deepEqual(metadata.id_token_signing_alg_values_supported, ['ES256']);
  t.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  t.deepEqual(metadata.token_endpoint_auth_methods_supported, [
    'client_secret_basic',
    'client_secret_post',
    'none',
  ]);

  // The RFC 8414 document beside it gains jwks_uri and the OIDC scopes, not the OpenID-only members.
  const oauth = (await (
    await fetch(`${system.url}/.well-known/oauth-authorization-server`)
  ).json()) as Record<string, unknown>;
  t.is(oauth.jwks_uri, `${system.config.appUrl}/v2/auth/oauth2/jwks`);
  t.true((oauth.scopes_supported as string[]).includes('openid'));
  t.false('userinfo_endpoint' in oauth);
  t.false('id_token_signing_alg_values_supported' in oauth);

  // A forged Host changes nothing (the pinned origin).
  const forged = await fetch(`${system.url}/.well-known/openid-configuration`, {
    headers: { host: 'evil.example' },
  });
  t.is(((await forged.json()) as { issuer: string }).issuer, system.config.appUrl);
});

test('code flow with PKCE and openid: a signed ID token with the claims of the granted scopes, userinfo, refresh', async (t) => {
  const config = await discover(oidc);
  const { callback, verifier, state, nonce } = await authorize(
    config,
    oidc,
    'openid profile email PROFILE_READ',
  );
  t.is(callback.searchParams.get('iss'), system.config.appUrl);
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  t.is(tokens.scope, 'openid profile email PROFILE_READ');
  const claims = tokens.claims()!;
  t.is(claims.iss, system.config.appUrl);
  t.is(claims.aud, oidc.client.id);
  t.is(claims.sub, String(user.id));
  t.is(claims.nonce, nonce);
  t.is(typeof claims.auth_time, 'number');
  t.is(claims.name, 'Ada Lovelace');
  t.is(claims.preferred_username, 'ada');
  t.is(claims.zoneinfo, 'Europe/London');
  t.is(claims.locale, 'en');
  t.is(typeof claims.updated_at, 'number');
  t.is(claims.email, user.email);
  t.is(claims.email_verified, true);
  const { header } = decodeJwt(tokens.id_token!);
  t.is(header.alg, 'ES256');
  t.true(await verifiesWithJwks(tokens.id_token!));

  const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
  t.is(info.sub, String(user.id));
  t.is(info.name, 'Ada Lovelace');
  t.is(info.email, user.email);
  t.is(info.email_verified, true);
  t.is(info.zoneinfo, 'Europe/London');

  // The access token still works at the resource API for its API scope.
  const me = await fetch(`${system.url}/v2/me`, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  t.is(me.status, 200);

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  t.is(refreshed.scope, 'openid profile email PROFILE_READ');
  const again = refreshed.claims()!;
  t.is(again.sub, String(user.id));
  t.is(again.aud, oidc.client.id);
  t.is(again.email, user.email);
  t.true(await verifiesWithJwks(refreshed.id_token!));
});

test('userinfo answers per scope: openid alone gives sub only; email without profile has no name', async (t) => {
  const config = await discover(publicOidc);
  const { callback, verifier, state, nonce } = await authorize(config, publicOidc, 'openid email');
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  const claims = tokens.claims()!;
  t.is(claims.email, user.email);
  t.false('name' in claims);
  t.false('preferred_username' in claims);
  const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
  t.deepEqual(Object.keys(info).sort(), ['email', 'email_verified', 'sub']);

  const profileConfig = await discover(profileOnly);
  const second = await authorize(profileConfig, profileOnly, 'openid');
  const onlyOpenid = await client.authorizationCodeGrant(profileConfig, second.callback, {
    pkceCodeVerifier: second.verifier,
    expectedState: second.state,
    expectedNonce: second.nonce,
  });
  const idClaims = onlyOpenid.claims()!;
  t.false('email' in idClaims);
  t.false('name' in idClaims);
  const userinfo = await client.fetchUserInfo(profileConfig, onlyOpenid.access_token, String(user.id));
  t.deepEqual(Object.keys(userinfo), ['sub']);

  // An access token with only the OIDC scopes opens nothing of the resource API.
  const me = await fetch(`${system.url}/v2/me`, {
    headers: { authorization: `Bearer ${onlyOpenid.access_token}` },
  });
  t.is(me.status, 403);
});

test('no openid, no ID token; userinfo refuses a token without openid, an unknown one and none', async (t) => {
  const config = await discover(oidc);
  const { callback, verifier, state } = await authorize(config, oidc, 'PROFILE_READ');
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  t.is(tokens.id_token, undefined);
  const refused = await fetch(`${system.url}/v2/auth/oauth2/userinfo`, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  t.is(refused.status, 403);
  const unknown = await fetch(`${system.url}/v2/auth/oauth2/userinfo`, {
    headers: { authorization: 'Bearer nope' },
  });
  t.is(unknown.status, 401);
  const none = await fetch(`${system.url}/v2/auth/oauth2/userinfo`);
  t.is(none.status, 401);
});

test('openid must be registered on the client: otherwise a 303 invalid_request, and the other scope rules stay', async (t) => {
  const base = {
    client_id: apiOnly.client.id,
    redirect_uri: apiOnly.redirectUri,
    state: 'st',
    code_challenge: pkcePair().challenge,
  };
  const res = await fetch(authorizeUrl(system.url, { ...base, scope: 'openid PROFILE_READ' }), {
    redirect: 'manual',
  });
  t.is(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  t.is(location.searchParams.get('error'), 'invalid_request');
  t.is(
    location.searchParams.get('error_description'),
    "Requested scope exceeds the client's registered scopes",
  );

  // Uppercase spellings are not the OIDC scopes: unknown.
  const upper = await fetch(
    authorizeUrl(system.url, {
      ...base,
      client_id: oidc.client.id,
      redirect_uri: oidc.redirectUri,
      scope: 'OPENID',
    }),
    {
      redirect: 'manual',
    },
  );
  t.is(new URL(upper.headers.get('location')!).searchParams.get('error'), 'invalid_scope');

  // Missing scope for a non-legacy client is still the page error.
  const missing = await fetch(
    authorizeUrl(system.url, { ...base, client_id: oidc.client.id, redirect_uri: oidc.redirectUri }),
    {
      redirect: 'manual',
    },
  );
  t.is(missing.status, 400);
  t.regex(await missing.text(), /scope parameter is required for this OAuth client/);
});

test('the consent page describes the OIDC scopes in plain words', async (t) => {
  const url = authorizeUrl(system.url, {
    client_id: consentOnly.client.id,
    redirect_uri: consentOnly.redirectUri,
    state: 'st',
    scope: 'openid profile email',
    code_challenge: pkcePair().challenge,
  });
  const { FlowBrowser } = await import('../support/oauth.ts');
  const browser = new FlowBrowser(system.url);
  let outcome = await browser.open(url);
  if (outcome.kind === 'page' && outcome.html.includes('/signin'))
    outcome = await browser.submit(outcome, '/signin', { email: user.email, password: user.password });
  t.is(outcome.kind, 'page');
  if (outcome.kind !== 'page') return;
  t.regex(outcome.html, /Sign you in with your account/);
  t.regex(outcome.html, /See your name, username, time zone and language/);
  t.regex(outcome.html, /See your e-mail address and whether it is verified/);
});

test('the token response carries id_token beside the usual members (form and JSON bodies)', async (t) => {
  const pkce = pkcePair();
  const { outcome } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: oidc.client.id,
      redirect_uri: oidc.redirectUri,
      state: 'st',
      nonce: 'n-0S6_WzA2Mj',
      scope: 'openid',
      code_challenge: pkce.challenge,
    }),
    { user },
  );
  if (outcome.kind !== 'redirect') throw new Error('no redirect');
  const response = await tokenRequest(
    system.url,
    {
      client_id: oidc.client.id,
      client_secret: oidc.secret!,
      grant_type: 'authorization_code',
      code: outcome.url.searchParams.get('code')!,
      redirect_uri: oidc.redirectUri,
      code_verifier: pkce.verifier,
    },
    { json: true },
  );
  t.is(response.status, 200);
  t.deepEqual(Object.keys(response.body).sort(), [
    'access_token',
    'expires_in',
    'id_token',
    'refresh_token',
    'scope',
    'token_type',
  ]);
  t.is(response.body.token_type, 'bearer');
  const { payload } = decodeJwt(response.body.id_token as string);
  t.is(payload.nonce, 'n-0S6_WzA2Mj');
  t.is(payload.sub, String(user.id));
  t.is(response.headers.get('cache-control'), 'no-store');
});

test('JWKS, userinfo and the OpenID document are open to CORS (no credentials)', async (t) => {
  for (const path of ['/v2/auth/oauth2/jwks', '/.well-known/openid-configuration']) {
    const res = await fetch(`${system.url}${path}`, { headers: { origin: 'https://rp.example' } });
    t.is(res.status, 200, path);
    t.is(res.headers.get('access-control-allow-origin'), '*', path);
    t.is(res.headers.get('access-control-allow-credentials'), null, path);
  }
  const jwks = (await (await fetch(`${system.url}/v2/auth/oauth2/jwks`)).json()) as {
    keys: Array<Record<string, unknown>>;
  };
  t.true(jwks.keys.length >= 1);
  for (const key of jwks.keys) {
    t.false('d' in key, 'no private part is published');
    t.is(key.use, 'sig');
  }
  t.false(jwks.keys.some((key) => key.kid === 'placeholder'));
});
