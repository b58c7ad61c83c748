import test from 'ava';
import { insertUser, uniqueTag } from '../support/factories.ts';
import { authorizeUrl, FlowBrowser, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import {
  follow,
  linkHref,
  linkInMail,
  nextMail,
  page,
  signUpFromSettings,
  text,
  VERIFY_SUBJECT,
} from './accounts.ts';

// Sign-up is reachable from every sign-in page (`Create account`), inside an authorization request
// and outside one: the settings sign-in page's link opens a sign-up form (Name, Email, Username,
// Password, button Create account) that creates the account, sends the verification link and signs
// the new user into the settings page asked for.

const world = setUpWorld(test, { clients: { app: {} } });
const username = () => `u${uniqueTag()}`.slice(0, 30);

test('every sign-in page links to "Create account"', async (t) => {
  const browser = new FlowBrowser(world.system.url);
  const settings = page(await browser.open('/auth/settings/sign-in'));
  t.is(linkHref(settings.html, 'Create account'), '/auth/settings/sign-up?return=%2Fauth%2Fsettings');
  const app = world.clients.app;
  const authorize = page(
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
  t.regex(linkHref(authorize.html, 'Create account') ?? '', /^\/auth\/interaction\/[^/]+\/signup$/);
});

test('sign-up from the settings sign-in page signs the new user in, back on the page asked for', async (t) => {
  const browser = new FlowBrowser(world.system.url);
  const signIn = page(await browser.open('/auth/settings/invitations'));
  t.is(signIn.url.pathname, '/auth/settings/sign-in');
  const form = await follow(browser, signIn, 'Create account');
  t.is(form.url.pathname, '/auth/settings/sign-up');
  for (const label of ['Name', 'Email', 'Username', 'Password'])
    t.regex(form.html, new RegExp(`<label for="\\w+">${label}</label>`), label);
  t.regex(form.html, /<button type="submit" class="primary block">Create account<\/button>/);
  t.is(linkHref(form.html, 'Sign in'), '/auth/settings/sign-in?return=%2Fauth%2Fsettings%2Finvitations');

  const email = `settings-${uniqueTag()}@example.com`;
  const landed = page(
    await browser.submit(form, '/auth/settings/sign-up', {
      name: 'Grace Hopper',
      email,
      username: username(),
      password: 'a long enough password',
    }),
  );
  t.is(landed.status, 200);
  t.is(landed.url.pathname, '/auth/settings/invitations');
  const account = page(await browser.open('/auth/settings'));
  t.true(text(account.html).includes(email));
  t.true(text(account.html).includes('Not verified'));
  const row = await world
    .knex()('users')
    .whereRaw('lower(email) = lower(?)', [email])
    .first('name', 'email_verified_at');
  t.is(row.name, 'Grace Hopper');
  t.is(row.email_verified_at, null);
  await nextMail(world, email, VERIFY_SUBJECT);

  // Signed in, the sign-up page goes straight back.
  const again = page(await browser.open('/auth/settings/sign-up'));
  t.is(again.url.pathname, '/auth/settings');
});

test('the settings sign-up form: field errors (400), a taken address or username (409), CSRF (403)', async (t) => {
  const existing = await insertUser(world.knex(), { username: username() });
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open('/auth/settings/sign-up'));
  const invalid = page(
    await browser.submit(form, '/auth/settings/sign-up', {
      name: '',
      email: 'nope',
      username: '-',
      password: 'short',
    }),
  );
  t.is(invalid.status, 400);
  t.regex(invalid.html, /id="name-error">Enter your name/);
  t.regex(invalid.html, /id="email-error">Enter a valid email address/);
  t.regex(invalid.html, /id="username-error">/);
  t.regex(invalid.html, /id="password-error">Use at least 8 characters/);

  const taken = page(
    await browser.submit(invalid, '/auth/settings/sign-up', {
      name: 'Someone',
      email: existing.email.toUpperCase(),
      username: username(),
      password: 'long enough password',
    }),
  );
  t.is(taken.status, 409);
  t.regex(taken.html, /An account with this email already exists/);
  const takenName = page(
    await browser.submit(taken, '/auth/settings/sign-up', {
      name: 'Someone',
      email: `free-${uniqueTag()}@example.com`,
      username: existing.user.username!,
      password: 'long enough password',
    }),
  );
  t.is(takenName.status, 409);
  t.regex(takenName.html, /This username is taken/);

  const forged = await browser.request('/auth/settings/sign-up', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      name: 'X',
      email: `x-${uniqueTag()}@example.com`,
      username: username(),
      password: 'long enough password',
    }),
  });
  t.is(forged.status, 403);
});

test('the return address of sign-up is only ever a settings or admin page', async (t) => {
  const browser = new FlowBrowser(world.system.url);
  const form = page(
    await browser.open(`/auth/settings/sign-up?return=${encodeURIComponent('https://evil.example/')}`),
  );
  const landed = page(
    await browser.submit(form, '/auth/settings/sign-up', {
      name: 'Returner',
      email: `ret-${uniqueTag()}@example.com`,
      username: username(),
      password: 'long enough password',
    }),
  );
  t.is(landed.url.pathname, '/auth/settings');
});

test('an invitation to an address without an account does not block its sign-up; verified, it is there', async (t) => {
  const inviter = await insertUser(world.knex());
  const team = await world.call('POST', '/v2/teams', {
    token: inviter.apiKey,
    body: { name: 'Waiting Team' },
  });
  const email = `invited-${uniqueTag()}@example.com`;
  const invited = await world.call('POST', `/v2/teams/${team.body.data.id}/memberships`, {
    token: inviter.apiKey,
    body: { email, role: 'MEMBER' },
  });
  t.is(invited.status, 201);

  // The owner of the address signs up as usual (no account was made for them by the invitation).
  const { browser } = await signUpFromSettings(world, {
    email,
    username: username(),
    password: 'long enough password',
  });
  const before = page(await browser.open('/auth/settings/invitations'));
  t.false(text(before.html).includes('Waiting Team'), 'not before the address is verified');

  const verification = await nextMail(world, email, VERIFY_SUBJECT);
  page(await browser.open(linkInMail(verification, '/auth/verify-email')));
  const after = page(await browser.open('/auth/settings/invitations'));
  t.true(text(after.html).includes('Waiting Team'), 'verified, the invitation is there');
});
