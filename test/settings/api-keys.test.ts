import test from 'ava';
import { insertUser } from '../support/factories.ts';
import type { FlowBrowser, PageResult } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// API keys in the settings (create, shown once, revoke; an unverified account cannot create them),
// checked against the API itself.

const KEYS = '/auth/settings/api-keys';
const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();

const shownKey = (html: string) => /id="new-api-key"[^>]*value="(svc_[^"]+)"/.exec(html)?.[1] ?? null;

async function create(browser: FlowBrowser): Promise<{ result: PageResult; key: string | null }> {
  const list = page(await browser.open(KEYS));
  const result = await post(browser, list, KEYS);
  return { result, key: shownKey(result.html) };
}

test('create shows the key once; it works on the API; the list shows hint, created and last used', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const { result, key } = await create(browser);
  t.is(result.status, 200);
  t.truthy(key);
  t.true(text(result.html).includes('Copy it now: it will not be shown again.'));
  // The copy script is allowed on this page only while the key is shown.
  t.regex(result.html, /<script src="\/auth\/settings\/assets\/copy\.js"/);
  const used = await call('GET', '/v2/me', { token: key! });
  t.is(used.status, 200);
  t.is(used.body.data.id, user.id);
  // A reload (same reveal link) does not show it again.
  const reload = page(await browser.open(result.url.href));
  t.is(shownKey(reload.html), null);
  t.true(text(reload.html).includes('That key was shown once and cannot be shown again.'));
  const listed = await call('GET', '/v2/api-keys', { token: user.apiKey });
  const created = listed.body.data.find((k: { hint: string }) => key!.endsWith(k.hint));
  t.truthy(created);
  t.true(reload.html.includes(`svc_…${created.hint}`));
  t.regex(text(reload.html), /Last used/);
});

test('revoke ends the key at once', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const { key } = await create(browser);
  t.is((await call('GET', '/v2/me', { token: key! })).status, 200);
  const listed = await call('GET', '/v2/api-keys', { token: user.apiKey });
  const id = listed.body.data.find((k: { hint: string }) => key!.endsWith(k.hint)).id;
  const list = page(await browser.open(KEYS));
  const revoked = await post(browser, list, `${KEYS}/${id}/revoke`);
  t.is(revoked.status, 200);
  t.true(text(revoked.html).includes('API key revoked.'));
  t.is((await call('GET', '/v2/me', { token: key! })).status, 401);
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200, 'the other key stays');
});

test("someone else's key is 404 and stays", async (t) => {
  const user = await insertUser(knex());
  const other = await insertUser(knex());
  const browser = await signedIn(world, user);
  const theirs = await call('GET', '/v2/api-keys', { token: other.apiKey });
  const id = theirs.body.data[0].id;
  const list = page(await browser.open(KEYS));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const refused = await rawPost(browser, `${KEYS}/${id}/revoke`, { _csrf: csrf });
  t.is(refused.status, 404);
  t.true(text(refused.html).includes('API key not found'));
  t.is((await call('GET', '/v2/me', { token: other.apiKey })).status, 200);
});

test('an unverified account cannot create keys: 403 "Verify your e-mail address first"', async (t) => {
  const user = await insertUser(knex());
  await knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  const browser = await signedIn(world, user);
  const list = page(await browser.open(KEYS));
  t.true(text(list.html).includes('Verify your e-mail address first'));
  t.notRegex(list.html, /Create API key/);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const refused = await rawPost(browser, KEYS, { _csrf: csrf });
  t.is(refused.status, 403);
  t.true(text(refused.html).includes('Verify your e-mail address first'));
  const keys = await call('GET', '/v2/api-keys', { token: user.apiKey });
  t.is(keys.body.data.length, 1, 'no key was made');
});

test('create and revoke need the CSRF token of the signed-in user', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  t.is((await rawPost(browser, KEYS, {})).status, 403);
  const keys = await call('GET', '/v2/api-keys', { token: user.apiKey });
  t.is(keys.body.data.length, 1);
  t.is((await rawPost(browser, `${KEYS}/${keys.body.data[0].id}/revoke`, {})).status, 403);
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
});

test("creations count against the API's POST /v2/api-keys limit (the same counter): 429 past it", async (t) => {
  const user = await insertUser(knex());
  // 50 creations this hour through the API (counted straight into its counter).
  for (let i = 0; i < 50; i++) await world.store().hit(`api:api-keys:user:${user.id}`, 3600);
  const browser = await signedIn(world, user);
  const list = page(await browser.open(KEYS));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const refused = await rawPost(browser, KEYS, { _csrf: csrf });
  t.is(refused.status, 429);
  const keys = await call('GET', '/v2/api-keys', { token: user.apiKey });
  t.is(keys.body.data.length, 1, 'no key was made');
  t.is(
    (await call('POST', '/v2/api-keys', { token: user.apiKey })).status,
    429,
    'and the API counts the page',
  );
});

test('a notice the page does not know (an inherited name) shows nothing', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  for (const path of [KEYS, '/auth/settings/developer/oauth-clients']) {
    for (const notice of ['constructor', 'toString', '__proto__']) {
      const shown = page(await browser.open(`${path}?notice=${notice}`));
      t.is(shown.status, 200);
      t.false(/native code|\[object Object\]/.test(shown.html), `${path}?notice=${notice}`);
    }
  }
});
