import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// Connected apps in the settings: the list of GET /v2/me/connected-apps with the scopes in plain
// words, and Revoke, which ends the app's tokens for the user at once.

const APPS = '/auth/settings/connected-apps';
const world = setUpWorld(test, {
  clients: {
    calendar: {
      name: 'Calendar Sync',
      logo: 'https://calendar.example.com/logo.png',
      websiteUrl: 'https://calendar.example.com',
      scopes: ['PROFILE_READ', 'BOOKING_READ'],
    },
    notes: { name: 'Notes', scopes: ['PROFILE_READ'] },
  },
});
const { call } = world;
const knex = () => world.knex();

test('the list shows name, logo, website, scopes in plain words, granted and last used', async (t) => {
  const user = await insertUser(knex());
  await issueTokens(world.system.url, world.clients.calendar, user);
  const browser = await signedIn(world, user);
  const list = page(await browser.open(APPS));
  t.is(list.status, 200);
  const words = text(list.html);
  t.true(words.includes('Calendar Sync'));
  t.regex(list.html, /<img class="app-logo" src="https:\/\/calendar\.example\.com\/logo\.png"/);
  t.regex(list.html, /href="https:\/\/calendar\.example\.com"/);
  t.true(words.includes('Read your profile and booking limits'));
  t.true(words.includes('Read your bookings'));
  t.regex(words, /Authorized \d{1,2} \w{3} \d{4}/);
  t.regex(words, /Last used \d{1,2} \w{3} \d{4}/);
  t.false(words.includes('Notes'), 'an app the user never authorized is not listed');
});

test('no apps: an empty state', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  t.true(text(page(await browser.open(APPS)).html).includes('No connected apps.'));
});

test("Revoke ends the app's access and refresh tokens at once and drops it from the list", async (t) => {
  const user = await insertUser(knex());
  const calendar = await issueTokens(world.system.url, world.clients.calendar, user);
  const notes = await issueTokens(world.system.url, world.clients.notes, user);
  const browser = await signedIn(world, user);
  const list = page(await browser.open(APPS));
  const revoked = await post(browser, list, `${APPS}/${world.clients.calendar.client.id}/revoke`);
  t.is(revoked.status, 200);
  t.true(text(revoked.html).includes('Access revoked.'));
  t.false(text(revoked.html).includes('Calendar Sync'));
  t.true(text(revoked.html).includes('Notes'));
  t.is((await call('GET', '/v2/me', { token: calendar.access_token })).status, 401);
  const refresh = await tokenRequest(world.system.url, {
    grant_type: 'refresh_token',
    refresh_token: calendar.refresh_token,
    client_id: world.clients.calendar.client.id,
    client_secret: world.clients.calendar.secret!,
  });
  t.is(refresh.status, 400);
  t.is((await call('GET', '/v2/me', { token: notes.access_token })).status, 200, 'the other app stays');
  const apps = await call('GET', '/v2/me/connected-apps', { token: user.apiKey });
  t.deepEqual(
    apps.body.data.map((app: { name: string }) => app.name),
    ['Notes'],
  );
});

test('revoking an app that is not connected is 404 on the list; CSRF is required', async (t) => {
  const user = await insertUser(knex());
  const tokens = await issueTokens(world.system.url, world.clients.calendar, user);
  const browser = await signedIn(world, user);
  const list = page(await browser.open(APPS));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const missing = await rawPost(browser, `${APPS}/${world.clients.notes.client.id}/revoke`, { _csrf: csrf });
  t.is(missing.status, 404);
  t.true(text(missing.html).includes('Connected app not found'));
  const forged = await rawPost(browser, `${APPS}/${world.clients.calendar.client.id}/revoke`, {});
  t.is(forged.status, 403);
  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
});
