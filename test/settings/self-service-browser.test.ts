import test from 'ava';
import { openPage, type Page, screenshotsIn, setUpChromium, signInAt } from '../support/browser.ts';
import { insertUser, type TestUser } from '../support/factories.ts';
import { issueTokens } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Real Chromium on the self-service settings pages: the profile with the time-zone search
// script, the password change with a second browser signed out, API keys created and revoked,
// a connected app revoked, and the account deleted; each result checked through the API.
// Screenshots (outside git), light and dark: $TMPDIR/sched-self-service-screens/.

const world = setUpWorld(test, {
  clients: { calendar: { name: 'Calendar Sync', scopes: ['PROFILE_READ', 'BOOKING_READ'] } },
});
const { call } = world;
const knex = () => world.knex();
const chromium = setUpChromium(test);
const screenshots = screenshotsIn('sched-self-service-screens');

const signIn = (page: Page, user: TestUser, path: string, password = user.password) =>
  signInAt(page, new URL(path, world.system.url).href, user, password);

const me = async (user: TestUser, token = user.apiKey) => (await call('GET', '/v2/me', { token })).body.data;

test('profile: edit the fields, find a time zone with the search box, save; GET /v2/me shows it', async (t) => {
  const user = await insertUser(knex(), { name: 'Paula Picker', timeZone: 'Europe/Berlin' });
  t.is((await me(user)).timeZone, 'Europe/Berlin'); // cached by the API now
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 900 });
  try {
    await signIn(page, user, '/auth/settings/profile');
    await page.getByLabel('Name', { exact: true }).fill('Paula Neu');
    const search = page.getByRole('searchbox', { name: 'Search time zones' });
    t.true(await search.isVisible(), 'the script shows the search box');
    await search.fill('toky');
    const select = page.locator('#timeZone');
    t.is((await select.locator('option:not([hidden])').count()) >= 1, true);
    t.true(
      (await select.locator('option:not([hidden])').allTextContents()).every(
        (label) => /Tokyo/.test(label) || /Berlin/.test(label),
      ),
      'only matches (and the selected zone) stay',
    );
    await search.press('Enter');
    t.is(await select.inputValue(), 'Asia/Tokyo');
    await page.getByLabel('Week starts on').selectOption('Sunday');
    await page.getByLabel('Time format').selectOption('24');
    await screenshots(page, 'profile');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  t.like(await me(user), {
    name: 'Paula Neu',
    timeZone: 'Asia/Tokyo',
    weekStart: 'Sunday',
    timeFormat: 24,
  });
});

test('password: change it in one browser; the other browser is signed out', async (t) => {
  const user = await insertUser(knex());
  const one = await openPage(chromium(), { width: 1000, height: 800 });
  const two = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    await signIn(one.page, user, '/auth/settings/password');
    await signIn(two.page, user, '/auth/settings');
    await one.page.getByLabel('Current password').fill(user.password);
    await one.page.getByLabel('New password', { exact: true }).fill('chromium new password');
    await one.page.getByLabel('New password again').fill('chromium new password');
    await one.page.getByRole('button', { name: 'Change password' }).click();
    await one.page.getByText('Password changed. Your other sessions were signed out.').waitFor();
    await screenshots(one.page, 'password');
    await two.page.reload();
    await two.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.is(new URL(two.page.url()).pathname, '/auth/settings/sign-in');
    await one.page.goto(new URL('/auth/settings', world.system.url).href);
    t.is(new URL(one.page.url()).pathname, '/auth/settings', 'this browser stays signed in');
    await signIn(two.page, user, '/auth/settings', 'chromium new password');
    t.deepEqual([...one.problems, ...two.problems], []);
  } finally {
    await one.context.close();
    await two.context.close();
  }
});

test('API keys: create (shown once, works), then revoke (stops working)', async (t) => {
  const user = await insertUser(knex());
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    await signIn(page, user, '/auth/settings/api-keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const field = page.getByLabel('API key', { exact: true });
    await field.waitFor();
    const key = await field.inputValue();
    t.regex(key, /^svc_/);
    t.true(await page.getByRole('button', { name: 'Copy' }).isVisible(), 'the copy script runs');
    await screenshots(page, 'api-key-created');
    t.is((await me(user, key)).id, user.id);
    await page.reload();
    t.false(await page.getByLabel('API key', { exact: true }).isVisible(), 'shown once');
    const row = page.getByRole('row').filter({ hasText: key.slice(-4) });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('API key revoked.').waitFor();
    t.is((await call('GET', '/v2/me', { token: key })).status, 401);
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('connected apps: revoke one; its token stops working', async (t) => {
  const user = await insertUser(knex());
  const tokens = await issueTokens(world.system.url, world.clients.calendar, user);
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    await signIn(page, user, '/auth/settings/connected-apps');
    const item = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Calendar Sync' }) });
    t.true(await item.getByText('Read your bookings').isVisible());
    await screenshots(page, 'connected-apps');
    await item.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByText('Access revoked.').waitFor();
    t.true(await page.getByText('No connected apps.').isVisible());
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 401);
});

test('delete the account: warning, password, goodbye; the API no longer knows it', async (t) => {
  const user = await insertUser(knex());
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    await signIn(page, user, '/auth/settings/profile');
    await page.getByRole('link', { name: 'Delete account…' }).click();
    await page.getByRole('heading', { name: 'Delete account' }).waitFor();
    t.true(await page.getByText('This cannot be undone.').isVisible());
    await page.getByLabel('Enter your password to confirm').fill(user.password);
    await screenshots(page, 'delete-account');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByRole('heading', { name: 'Your account was deleted' }).waitFor();
    await screenshots(page, 'goodbye');
    await page.goto(new URL('/auth/settings', world.system.url).href);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 401);
});
