import { loadConfig } from '@sched/kit/config';
import test from 'ava';
import { insertClient, insertUser, uniqueTag } from '../support/factories.ts';
import { waitForMail } from '../support/mail.ts';
import { authorizeUrl, FlowBrowser, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { linkHref, page, signInToSettings, text } from './accounts.ts';

// SIGNUP_ENABLED=false turns public sign-up off everywhere: no "Create account" link, the sign-up
// pages and their POSTs are a 403 page; accounts made by an administrator still sign in, and
// "Forgot password?" stays.

const world = setUpWorld(test, { env: { SIGNUP_ENABLED: 'false' }, clients: { app: {} } });
const OFF = /Sign-up is turned off on this server/;

async function authorizationSignIn(browser: FlowBrowser) {
  const app = world.clients.app;
  return page(
    await browser.open(
      authorizeUrl(world.system.url, {
        client_id: app.client.id,
        redirect_uri: app.redirectUri,
        scope: app.client.scopes.join(' '),
        state: 's',
        code_challenge: pkcePair().challenge,
      }),
    ),
  );
}

test('SIGNUP_ENABLED is validated: true, false, 1 or 0', (t) => {
  t.true(loadConfig({}).signupEnabled);
  t.false(loadConfig({ SIGNUP_ENABLED: 'false' }).signupEnabled);
  t.false(loadConfig({ SIGNUP_ENABLED: '0' }).signupEnabled);
  t.throws(() => loadConfig({ SIGNUP_ENABLED: 'maybe' }), { message: /SIGNUP_ENABLED/ });
});

test('no sign-in page offers "Create account"; "Forgot password?" stays', async (t) => {
  const browser = new FlowBrowser(world.system.url);
  const settings = page(await browser.open('/auth/settings/sign-in'));
  t.is(linkHref(settings.html, 'Create account'), undefined);
  t.false(settings.html.includes('Create account'));
  t.is(linkHref(settings.html, 'Forgot password?'), '/auth/forgot-password');
  const authorize = await authorizationSignIn(browser);
  t.regex(authorize.html, /<h1>Sign in<\/h1>/);
  t.false(authorize.html.includes('Create account'));
  t.is(linkHref(authorize.html, 'Forgot password?'), '/auth/forgot-password');
});

test('the sign-up pages and their POSTs are a 403 page saying so', async (t) => {
  const browser = new FlowBrowser(world.system.url);
  const settingsForm = page(await browser.open('/auth/settings/sign-up'));
  t.is(settingsForm.status, 403);
  t.regex(text(settingsForm.html), OFF);
  const settingsPost = await browser.request('/auth/settings/sign-up', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      name: 'X',
      email: `x-${uniqueTag()}@example.com`,
      username: 'xx',
      password: 'long password',
    }),
  });
  t.is(settingsPost.status, 403);
  t.regex(text(await settingsPost.text()), OFF);

  const signIn = await authorizationSignIn(browser);
  const signUpPath = `${signIn.url.pathname.replace(/\/signin$/, '')}/signup`;
  const interactionForm = page(await browser.open(signUpPath));
  t.is(interactionForm.status, 403);
  t.regex(text(interactionForm.html), OFF);
  const interactionPost = await browser.request(signUpPath, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      name: 'X',
      email: `y-${uniqueTag()}@example.com`,
      username: 'yy',
      password: 'long password',
    }),
  });
  t.is(interactionPost.status, 403);
  t.is(
    await world
      .knex()('users')
      .whereRaw("email like 'x-%' or email like 'y-%'")
      .count('id as n')
      .first()
      .then((r) => Number(r?.n)),
    0,
  );
});

test('accounts made by an administrator still sign in', async (t) => {
  const email = `invited-${uniqueTag()}@example.com`;
  const created = await world.call('POST', '/v2/admin/users', {
    token: world.admin.apiKey,
    body: { email, password: 'made by the admin' },
  });
  t.is(created.status, 201);
  const { landed } = await signInToSettings(world, email, 'made by the admin');
  t.is(landed.url.pathname, '/auth/settings');
});

test('the onboarding embed opens on its sign-in form (no Create account); its reset link opens a new tab', async (t) => {
  const parent = 'https://parent.example';
  const client = await insertClient(world.knex(), { type: 'public', redirectUris: [`${parent}/callback`] });
  const entry = new URL('/auth/embed/onboarding', world.system.url);
  for (const [key, value] of Object.entries({
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    scope: client.client.scopes.join(' '),
    state: 'embed',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    parent_origin: parent,
    theme: 'light',
    mode: 'popup',
  }))
    entry.searchParams.set(key, value);
  const first = page(await new FlowBrowser(world.system.url).open(entry));
  t.is(first.status, 200, text(first.html));
  t.regex(first.html, /<h1>Sign in<\/h1>/);
  t.false(first.html.includes('Create account'));
  t.regex(
    first.html,
    /<a href="\/auth\/forgot-password" target="_blank" rel="noopener">Forgot password\?<\/a>/,
  );
});

test('an invitation by e-mail still goes out, and its mail says an administrator makes the account', async (t) => {
  const owner = await insertUser(world.knex());
  const team = await world.call('POST', '/v2/teams', { token: owner.apiKey, body: { name: 'Closed team' } });
  t.is(team.status, 201);
  const to = `closed-${uniqueTag()}@example.test`;
  const invited = await world.call('POST', `/v2/teams/${team.body.data.id}/memberships`, {
    token: owner.apiKey,
    body: { email: to, role: 'MEMBER' },
  });
  t.is(invited.status, 201);
  const mail = await waitForMail(world, to, (message) => message.subject.includes('Closed team'));
  for (const body of [mail.text, mail.html]) {
    t.regex(body, /ask an administrator of the service for one, since sign-up is turned off/);
    t.false(body.includes('create an account with this e-mail address first'));
  }
});
