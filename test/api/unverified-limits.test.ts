import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { FlowBrowser, type PageResult, type RedirectResult } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// An unverified account cannot create OAuth clients or API keys (403 `Verify your e-mail address
// first`), through the API and the settings form; once verified it can.

const world = setUpWorld(test);
const VERIFY_FIRST = 'Verify your e-mail address first';
const CLIENT_BODY = {
  name: 'Unverified App',
  redirectUris: ['https://unverified.example.com/callback'],
  scopes: ['PROFILE_READ'],
};

async function unverifiedUser() {
  const user = await insertUser(world.knex());
  await world.knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  return user;
}
const verify = (userId: number) =>
  world.knex()('users').where({ id: userId }).update({ email_verified_at: new Date() });

function page(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

test('POST /v2/api-keys: 403 until the address is verified', async (t) => {
  const user = await unverifiedUser();
  const refused = await world.call('POST', '/v2/api-keys', { token: user.apiKey });
  t.is(refused.status, 403);
  t.is(refused.body.error.message, VERIFY_FIRST);
  t.is((await world.call('GET', '/v2/api-keys', { token: user.apiKey })).body.data.length, 1, 'none made');
  await verify(user.id);
  t.is((await world.call('POST', '/v2/api-keys', { token: user.apiKey })).status, 201);
});

test('POST /v2/oauth-clients: 403 until the address is verified', async (t) => {
  const user = await unverifiedUser();
  const refused = await world.call('POST', '/v2/oauth-clients', { token: user.apiKey, body: CLIENT_BODY });
  t.is(refused.status, 403);
  t.is(refused.body.error.message, VERIFY_FIRST);
  t.deepEqual((await world.call('GET', '/v2/oauth-clients', { token: user.apiKey })).body.data, []);
  await verify(user.id);
  t.is(
    (await world.call('POST', '/v2/oauth-clients', { token: user.apiKey, body: CLIENT_BODY })).status,
    201,
  );
});

test('the settings form for a new OAuth client says so and refuses (403) until verified', async (t) => {
  const user = await unverifiedUser();
  const browser = new FlowBrowser(world.system.url);
  const signIn = page(await browser.open('/auth/settings/sign-in'));
  page(
    await browser.submit(signIn, '/auth/settings/sign-in', { email: user.email, password: user.password }),
  );
  const form = page(await browser.open('/auth/settings/developer/oauth-clients/new'));
  t.is(form.status, 200);
  t.true(form.html.includes(`${VERIFY_FIRST}.`));
  const fields = {
    name: 'Form App',
    redirectUris: 'https://form.example.com/callback',
    'scope.PROFILE_READ': 'on',
    clientType: 'confidential',
  };
  const refused = page(await browser.submit(form, '/auth/settings/developer/oauth-clients', fields));
  t.is(refused.status, 403);
  t.true(refused.html.includes(`${VERIFY_FIRST}.`));
  t.is(
    await world
      .knex()('oauth_clients')
      .where({ owner_user_id: user.id })
      .count('id as n')
      .first()
      .then((r) => Number(r?.n)),
    0,
  );

  await verify(user.id);
  const again = page(await browser.open('/auth/settings/developer/oauth-clients/new'));
  t.false(again.html.includes(VERIFY_FIRST));
  const created = page(await browser.submit(again, '/auth/settings/developer/oauth-clients', fields));
  t.is(created.status, 200);
  t.regex(created.url.pathname, /\/auth\/settings\/developer\/oauth-clients\/[^/]+$/);
});
