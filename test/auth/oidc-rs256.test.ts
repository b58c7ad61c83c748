import { createPublicKey, verify } from 'node:crypto';
import test from 'ava';
import * as client from 'openid-client';
import { authorizeInBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// ID_TOKEN_SIGNING_ALG=RS256: the keys are RSA, ID tokens are RS256, the OpenID document says so.

const {
  system,
  user,
  clients: { app },
} = setUpWorld(test, {
  env: { ID_TOKEN_SIGNING_ALG: 'RS256' },
  clients: { app: { type: 'public', scopes: ['openid'], redirectUris: ['http://127.0.0.1:9/rs/callback'] } },
});

test('RS256: advertised, published and used', async (t) => {
  const config = await client.discovery(new URL(system.url), app.client.id, undefined, client.None(), {
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
  });
  t.deepEqual(config.serverMetadata().id_token_signing_alg_values_supported, ['RS256']);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: app.redirectUri,
    scope: 'openid',
    state: 'st',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  if (outcome.kind !== 'redirect') throw new Error('no redirect');
  const tokens = await client.authorizationCodeGrant(config, outcome.url, {
    pkceCodeVerifier: verifier,
    expectedState: 'st',
  });
  const [h, p, s] = tokens.id_token!.split('.');
  const header = JSON.parse(Buffer.from(h!, 'base64url').toString('utf8')) as { alg: string; kid: string };
  t.is(header.alg, 'RS256');
  const jwks = (await (await fetch(`${system.url}/v2/auth/oauth2/jwks`)).json()) as {
    keys: Array<Record<string, unknown>>;
  };
  const jwk = jwks.keys.find((key) => key.kid === header.kid)!;
  t.is(jwk.kty, 'RSA');
  t.true(
    verify(
      'sha256',
      Buffer.from(`${h}.${p}`),
      createPublicKey({ key: jwk as never, format: 'jwk' }),
      Buffer.from(s!, 'base64url'),
    ),
  );
});
