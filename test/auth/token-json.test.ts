import test from 'ava';
import { clientCredentials, issueTokens, obtainCode, pkcePair, tokenRequest } from '../support/oauth.ts';
import { startTestSystem, type TestSystem } from '../support/system.ts';
import { insertClient, insertUser, type TestClient, type TestUser } from '../support/factories.ts';

// The token endpoint takes JSON as well as form bodies. The form variants of every case live in
// token-errors and codes-and-refresh; here each grant and the error rows are sent as JSON, so a
// parser that only handled one grant in JSON would be caught.

let system: TestSystem;
let user: TestUser;
let app: TestClient;
let spa: TestClient;

test.before(async () => {
  system = await startTestSystem();
  const knex = system.stores.db.knex;
  user = await insertUser(knex);
  app = await insertClient(knex, { scopes: ['PROFILE_READ', 'BOOKING_READ'] });
  spa = await insertClient(knex, { type: 'public', scopes: ['PROFILE_READ'] });
});
test.after.always(async () => {
  await system?.close();
});

const asJson = (params: Record<string, string>) => tokenRequest(system.url, params, { json: true });

test('refresh_token grant in JSON: rotated tokens with the same scope', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ', 'BOOKING_READ']);
  const response = await asJson({
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(response.status, 200, JSON.stringify(response.body));
  t.is(response.body.scope, 'PROFILE_READ BOOKING_READ');
  t.not(response.body.refresh_token, tokens.refresh_token);
  t.is(response.headers.get('cache-control'), 'no-store');
});

test('public client in JSON: the code exchange checks code_verifier', async (t) => {
  const pkce = pkcePair();
  const { code } = await obtainCode(
    system.url,
    {
      client_id: spa.client.id,
      redirect_uri: spa.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: pkce.challenge,
    },
    { user },
  );
  const redeem = {
    client_id: spa.client.id,
    grant_type: 'authorization_code',
    code,
    redirect_uri: spa.redirectUri,
  };
  const wrong = await asJson({ ...redeem, code_verifier: pkcePair().verifier });
  t.is(wrong.status, 400, JSON.stringify(wrong.body));
  t.is(wrong.body.error, 'invalid_grant');
  // A fresh code for the right verifier, so the outcome does not depend on what the failed attempt did.
  const again = pkcePair();
  const { code: second } = await obtainCode(
    system.url,
    {
      client_id: spa.client.id,
      redirect_uri: spa.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: again.challenge,
    },
    { user },
  );
  const right = await asJson({ ...redeem, code: second, code_verifier: again.verifier });
  t.is(right.status, 200, JSON.stringify(right.body));
  t.is(right.body.scope, 'PROFILE_READ');
});

const errorRows: ReadonlyArray<{
  title: string;
  params: () => Record<string, string>;
  status: number;
  error: string;
  description: string;
}> = [
  {
    title: 'client_id missing',
    params: () => ({ grant_type: 'refresh_token', refresh_token: 'x' }),
    status: 400,
    error: 'invalid_request',
    description: 'client_id is required',
  },
  {
    title: 'grant_type neither of the two',
    params: () => ({ ...clientCredentials(app), grant_type: 'client_credentials' }),
    status: 400,
    error: 'unsupported_grant_type',
    description: "grant_type must be 'authorization_code' or 'refresh_token'",
  },
  {
    title: 'no client with that id',
    params: () => ({
      client_id: 'no-such-client',
      client_secret: 'x',
      grant_type: 'refresh_token',
      refresh_token: 'x',
    }),
    status: 401,
    error: 'invalid_client',
    description: 'client_not_found',
  },
  {
    title: 'wrong secret',
    params: () => ({
      client_id: app.client.id,
      client_secret: `${app.secret}x`,
      grant_type: 'refresh_token',
      refresh_token: 'x',
    }),
    status: 401,
    error: 'invalid_client',
    description: 'invalid_client_credentials',
  },
  {
    title: 'refresh token invalid',
    params: () => ({ ...clientCredentials(app), grant_type: 'refresh_token', refresh_token: 'nope' }),
    status: 400,
    error: 'invalid_grant',
    description: 'invalid_refresh_token',
  },
];

for (const row of errorRows) {
  test(`JSON body, ${row.title}: ${row.status} ${row.error} "${row.description}"`, async (t) => {
    const response = await asJson(row.params());
    t.is(response.status, row.status, JSON.stringify(response.body));
    t.is(response.body.error, row.error);
    t.is(response.body.error_description, row.description);
    t.is(response.headers.get('cache-control'), 'no-store');
  });
}
