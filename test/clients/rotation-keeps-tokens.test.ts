import test from 'ava';
import { issueTokens, tokenRequest } from '../support/oauth.ts';
import { startWorld } from '../support/world.ts';
import { approvedClient, type ClientsWorld } from './helpers.ts';
import { insertUser, type TestUser, type TestClient } from '../support/factories.ts';

// Client-secret state table: "revocation or rotation does not invalidate existing access and
// refresh tokens". Secrets are generated and revoked through the API (the path people use), and
// the tokens are checked where they are used: GET /v2/me and the refresh grant.

let world: ClientsWorld;
let owner: TestUser;

test.before(async () => {
  world = await startWorld();
  owner = await insertUser(world.system.stores.db.knex);
});
test.after.always(async () => {
  await world?.close();
});

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

test('tokens issued with a secret outlive its rotation and its revocation', async (t) => {
  const created = await approvedClient(world, owner, {
    redirectUris: [REDIRECT_URI],
    scopes: ['PROFILE_READ'],
  });
  const first = created.secret as string;
  const client: TestClient = {
    client: { ...created, scopes: created.scopes } as TestClient['client'],
    secret: first,
    redirectUri: REDIRECT_URI,
  };
  const enduser = await insertUser(world.system.stores.db.knex);
  const tokens = await issueTokens(world.system.url, client, enduser, ['PROFILE_READ']);

  // Rotation: a second secret.
  const generated = await world.call('POST', `/v2/oauth-clients/${created.id}/secrets`, {
    token: owner.apiKey,
  });
  t.is(generated.status, 201);
  const second = generated.body.data.secret as string;
  t.is((await world.call('GET', '/v2/me', { token: tokens.access_token })).status, 200, 'after rotation');

  // Revocation of the secret the tokens were issued with.
  const [oldest] = (
    await world.call('GET', `/v2/oauth-clients/${created.id}/secrets`, { token: owner.apiKey })
  ).body.data;
  t.is(oldest.secretHint, `****${first.slice(-4)}`);
  const revoked = await world.call('DELETE', `/v2/oauth-clients/${created.id}/secrets/${oldest.id}`, {
    token: owner.apiKey,
  });
  t.is(revoked.status, 200);

  const me = await world.call('GET', '/v2/me', { token: tokens.access_token });
  t.is(me.status, 200, 'the access token still works after its secret was revoked');
  t.is(me.body.data.id, enduser.user.id);

  const refresh = (secret: string) =>
    tokenRequest(world.system.url, {
      client_id: created.id,
      client_secret: secret,
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
  // The revoked secret no longer authenticates the client; the refresh token was not spent by it.
  const withRevoked = await refresh(first);
  t.is(withRevoked.status, 401);
  t.is(withRevoked.body.error, 'invalid_client');
  const withActive = await refresh(second);
  t.is(withActive.status, 200, JSON.stringify(withActive.body));
  t.is(withActive.body.scope, 'PROFILE_READ');
  const renewed = await world.call('GET', '/v2/me', { token: String(withActive.body.access_token) });
  t.is(renewed.status, 200);
});
