import { createPublicKey, verify } from 'node:crypto';
import {
  keyEncryptionSecrets,
  RETIREMENT_SECONDS,
  SIGNING_KEYS_VERSION_KEY,
} from '@sched/auth/keys/signing-keys';
import { SigningKeyRing } from '@sched/auth/keys/key-ring';
import { createLogger } from '@sched/kit/logger';
import { commands } from '@sched/launcher/commands';
import test from 'ava';
import * as client from 'openid-client';
import type { TestClient } from '../support/factories.ts';
import { authorizeInBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Signing keys in the database: encrypted at rest, made on the first start, rotated by
// `rotate-keys` (the new kid signs at once, the JWKS lists both, the old key's ID tokens still
// verify until it retires), and every process of the deployment agrees on them.

const {
  system,
  knex,
  store,
  user,
  clients: { app },
} = setUpWorld(test, {
  clients: {
    app: {
      type: 'confidential',
      scopes: ['openid', 'email'],
      redirectUris: ['http://127.0.0.1:9/keys/callback'],
    },
  },
});

interface Jwk {
  kid: string;
  alg: string;
  [member: string]: unknown;
}

const jwks = async (): Promise<Jwk[]> =>
  ((await (await fetch(`${system.url}/v2/auth/oauth2/jwks`)).json()) as { keys: Jwk[] }).keys;

const header = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string; alg: string };

function verifiesWith(keys: Jwk[], jwt: string): boolean {
  const { kid } = header(jwt);
  const jwk = keys.find((key) => key.kid === kid);
  if (!jwk) return false;
  const [h, p, s] = jwt.split('.');
  return verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(s!, 'base64url'),
  );
}

const settings = () => ({
  secrets: keyEncryptionSecrets({
    keyEncryptionKey: system.config.keyEncryptionKey,
    cookieKeys: system.config.cookieKeys ?? [],
  }),
  alg: 'ES256' as const,
});

const rotate = () =>
  commands['rotate-keys'](knex(), {}, { signingKeys: settings(), versions: store() }) as Promise<{
    kid: string;
    retired: string | null;
    deleted: string[];
  }>;

async function idToken(testClient: TestClient): Promise<string> {
  const config = await client.discovery(
    new URL(system.url),
    testClient.client.id,
    undefined,
    client.ClientSecretPost(testClient.secret!),
    { execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks] },
  );
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: testClient.redirectUri,
    scope: 'openid email',
    state: 'st',
    nonce: 'nn',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  if (outcome.kind !== 'redirect') throw new Error('no redirect');
  const tokens = await client.authorizationCodeGrant(config, outcome.url, {
    pkceCodeVerifier: verifier,
    expectedState: 'st',
    expectedNonce: 'nn',
  });
  return tokens.id_token!;
}

test.serial(
  'the first start made one active key, stored encrypted, published without its private part',
  async (t) => {
    const published = await jwks();
    t.is(published.length, 1);
    const rows = await knex()('signing_keys').select('*');
    t.is(rows.length, 1);
    const row = rows[0] as { kid: string; state: string; alg: string; private_jwk_encrypted: string };
    t.is(row.state, 'active');
    t.is(row.alg, 'ES256');
    t.is(row.kid, published[0]!.kid);
    t.regex(row.private_jwk_encrypted, /^v1\./);
    t.false(row.private_jwk_encrypted.includes('"d"'), 'no plain private key in the database');
    t.false('d' in published[0]!);
  },
);

test.serial(
  'rotate-keys: new ID tokens carry the new kid, the JWKS lists both, an old ID token still verifies',
  async (t) => {
    const before = await idToken(app);
    const oldKid = header(before).kid;
    t.true(verifiesWith(await jwks(), before));

    const rotation = await rotate();
    t.is(rotation.retired, oldKid);
    t.not(rotation.kid, oldKid);

    const published = await jwks();
    t.deepEqual(
      published.map((key) => key.kid),
      [rotation.kid, oldKid],
      'the active key first, the retiring one still published',
    );
    const after = await idToken(app);
    t.is(header(after).kid, rotation.kid, 'signed with the new key at once');
    t.true(verifiesWith(published, after));
    t.true(verifiesWith(published, before), 'an ID token of the old key still verifies');
  },
);

test.serial(
  'a retiring key leaves the JWKS once its ID tokens have expired, and the next rotation deletes it',
  async (t) => {
    const [active, retiring] = await jwks();
    t.truthy(retiring);
    // Its ID tokens' lifetime (and the margin) has passed.
    await knex()('signing_keys')
      .where({ kid: retiring!.kid })
      .update({ retired_at: new Date(Date.now() - (RETIREMENT_SECONDS + 5) * 1000) });
    await store().bumpVersion(SIGNING_KEYS_VERSION_KEY);
    t.deepEqual(
      (await jwks()).map((key) => key.kid),
      [active!.kid],
    );
    const rotation = await rotate();
    t.deepEqual(rotation.deleted, [retiring!.kid]);
    t.is(rotation.retired, active!.kid);
    t.deepEqual(
      (await knex()('signing_keys').select('kid').orderBy('kid'))
        .map((row: { kid: string }) => row.kid)
        .sort(),
      [active!.kid, rotation.kid].sort(),
    );
  },
);

test.serial('another process of the deployment agrees: it reloads when the version moves', async (t) => {
  const other = new SigningKeyRing(knex(), store(), settings(), createLogger({ level: 'silent' }));
  await other.ensureFresh();
  const published = await jwks();
  t.deepEqual(
    other.keys.map((key) => key.kid),
    published.map((key) => key.kid),
  );
  const rotation = await rotate();
  await other.ensureFresh();
  t.is(other.keys[0]?.kid, rotation.kid);
  t.true(other.keys[0]?.active);
  t.is((await jwks())[0]?.kid, rotation.kid);
});

test.serial('keys encrypted with a secret that is no longer configured cannot be used', async (t) => {
  const stranger = new SigningKeyRing(
    knex(),
    store(),
    { secrets: ['another secret of at least thirty-two characters'], alg: 'ES256' },
    createLogger({ level: 'silent' }),
  );
  await t.throwsAsync(stranger.ensureFresh(), { message: /no longer configured/ });
});

test('configuration: KEY_ENCRYPTION_KEY needs 32 characters, ID_TOKEN_SIGNING_ALG is ES256 or RS256', async (t) => {
  const { loadConfig } = await import('@sched/kit/config');
  t.throws(() => loadConfig({ KEY_ENCRYPTION_KEY: 'short' }), {
    message: 'Invalid configuration: KEY_ENCRYPTION_KEY must be at least 32 characters',
  });
  t.throws(() => loadConfig({ ID_TOKEN_SIGNING_ALG: 'HS256' }), {
    message: 'Invalid configuration: ID_TOKEN_SIGNING_ALG must be ES256 or RS256',
  });
  const config = loadConfig({ ID_TOKEN_SIGNING_ALG: 'RS256', KEY_ENCRYPTION_KEY: 'k'.repeat(32) });
  t.is(config.idTokenSigningAlg, 'RS256');
  t.is(config.keyEncryptionKey, 'k'.repeat(32));
  t.is(loadConfig({}).idTokenSigningAlg, 'ES256');
  // KEY_ENCRYPTION_KEY first (it encrypts), then every cookie key (they still decrypt).
  t.deepEqual(keyEncryptionSecrets({ keyEncryptionKey: 'kek', cookieKeys: ['a', 'b'] }), ['kek', 'a', 'b']);
  t.deepEqual(keyEncryptionSecrets({ keyEncryptionKey: undefined, cookieKeys: ['a', 'b'] }), ['a', 'b']);
});
