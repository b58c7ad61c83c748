import { createApiKey } from '@sched/db/queries/api-keys';
import test from 'ava';
import { authorizeInBrowser, authorizeUrl, issueTokens, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpTestSystem } from '../support/system.ts';
import { apiClient } from '../support/http.ts';
import { insertUser, type TestClient } from '../support/factories.ts';

// A client registered and approved through the API runs the authorization-code flow of the
// authorization server; edited back to PENDING, it stops working at once (version bump).

const system = setUpTestSystem(test);

test('approved through the API: code flow works; edited back to PENDING: it stops', async (t) => {
  const knex = system.stores.db.knex;
  const call = apiClient(system.url);
  const owner = await insertUser(knex);
  const ownerKey = (await createApiKey(knex, owner.user.id)).plain;
  const admin = await insertUser(knex, { serviceAdmin: true });
  const enduser = await insertUser(knex);
  const redirectUri = 'http://127.0.0.1:9/callback';

  const created = await call('POST', '/v2/oauth-clients', {
    token: ownerKey,
    body: { name: 'Flow App', redirectUris: [redirectUri], scopes: ['PROFILE_READ'] },
  });
  t.is(created.status, 201);
  const data = created.body.data;
  const testClient: TestClient = {
    client: { ...data, scopes: data.scopes } as TestClient['client'],
    secret: data.secret,
    redirectUri,
  };

  // PENDING: the authorization page refuses it.
  const params = () => ({
    client_id: data.id,
    redirect_uri: redirectUri,
    scope: 'PROFILE_READ',
    state: 'abc',
    code_challenge: pkcePair().challenge,
  });
  const pending = await authorizeInBrowser(system.url, authorizeUrl(system.url, params()), { user: enduser });
  t.is(pending.outcome.kind, 'page');
  t.is(pending.outcome.status, 400);

  t.is(
    (await call('POST', `/v2/admin/oauth-clients/${data.id}/approve`, { token: admin.apiKey })).status,
    200,
  );
  const tokens = await issueTokens(system.url, testClient, enduser, ['PROFILE_READ']);
  t.is(tokens.scope, 'PROFILE_READ');
  const me = await call('GET', '/v2/me', { token: tokens.access_token });
  t.is(me.status, 200);
  t.is(me.body.data.id, enduser.user.id);

  // Renamed: back to PENDING; refresh and new authorizations are refused on the very next request.
  const edited = await call('PATCH', `/v2/oauth-clients/${data.id}`, {
    token: ownerKey,
    body: { name: 'Flow App 2' },
  });
  t.is(edited.body.data.reviewStatus, 'PENDING');
  const refresh = await tokenRequest(system.url, {
    client_id: data.id,
    client_secret: data.secret,
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(refresh.status, 401);
  t.is(refresh.body['error'], 'unauthorized_client');
  const again = await authorizeInBrowser(system.url, authorizeUrl(system.url, params()), { user: enduser });
  t.is(again.outcome.kind, 'page');
  t.is(again.outcome.status, 400);
});
