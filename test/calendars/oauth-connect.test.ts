import test from 'ava';
import { insertMembership, insertOrganization, insertUser } from '../support/factories.ts';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.ts';
import type { FlowBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, signedIn, text } from '../settings/helpers.ts';

// The Google connect flow of the settings page over HTTP, against a fake Google on loopback
// (test/support/fake-google.ts): the authorization redirect, the callback, the state's rules
// (single use, bound to the browser that started and to the signed-in account), a denial, and
// Disconnect revoking the grant. Each rule has a test that fails if the rule is removed.

const CALENDARS = '/auth/settings/calendars';
let google: FakeGoogle;
const world = setUpWorld(test, {
  env: async () => {
    google = await startFakeGoogle();
    return google.env;
  },
});
test.after.always(async () => {
  await google?.close();
});
const knex = () => world.knex();

/** Clicks "Connect Google Calendar": the 303 to Google's authorization endpoint. */
async function startConnect(browser: FlowBrowser): Promise<URL> {
  const list = page(await browser.open(CALENDARS));
  const started = await browser.submit(list, `${CALENDARS}/connect/google`, {});
  if (started.kind !== 'redirect')
    throw new Error(`expected the redirect to Google, got ${started.url.href}`);
  return started.url;
}

/** What Google does with the authorization request: its redirect back to our callback. */
async function authorizeAtGoogle(authorization: URL): Promise<URL> {
  const response = await fetch(authorization, { redirect: 'manual' });
  return new URL(response.headers.get('location') ?? '');
}

test.serial(
  'the authorization request: our callback, PKCE S256, a random state, offline access',
  async (t) => {
    const user = await insertUser(knex());
    const browser = await signedIn(world, user);
    const url = await startConnect(browser);
    t.is(`${url.origin}${url.pathname}`, `${google.url}/o/oauth2/v2/auth`);
    const query = url.searchParams;
    t.is(query.get('redirect_uri'), `${world.system.url}/auth/calendars/oauth/google/callback`);
    t.is(query.get('response_type'), 'code');
    t.is(query.get('code_challenge_method'), 'S256');
    t.regex(query.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    t.regex(query.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    t.is(query.get('access_type'), 'offline');
    t.is(query.get('prompt'), 'consent');
    t.not(
      (await startConnect(browser)).searchParams.get('state'),
      query.get('state'),
      'a new state each time',
    );
  },
);

test.serial('connect: the callback saves the connection; the page lists it with its calendars', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const callback = await authorizeAtGoogle(await startConnect(browser));
  const landed = page(await browser.open(callback));
  t.is(landed.url.pathname, CALENDARS);
  const words = text(landed.html);
  t.true(words.includes('Google Calendar connected.'), words);
  t.true(words.includes('Google Calendar: ada@example.com'));
  t.true(words.includes('Family'));
  t.false(/ya29\.|1\/\//.test(landed.html), 'no token on the page');
  const connections = await world.call('GET', '/v2/calendars', { token: user.apiKey });
  t.is(connections.status, 200);
  t.like(connections.body.data[0], { provider: 'google', account: 'ada@example.com', status: 'active' });
  // Checked for conflicts by default: the account's own calendars, not one shared with it.
  t.deepEqual(
    connections.body.data[0].calendars.map((c: { name: string; checkForConflicts: boolean }) => [
      c.name,
      c.checkForConflicts,
    ]),
    [
      ['ada@example.com', true],
      ['Family', false],
    ],
  );
});

test.serial('the state is single use: the same callback again saves nothing more', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const callback = await authorizeAtGoogle(await startConnect(browser));
  page(await browser.open(callback));
  const again = page(await browser.open(callback));
  t.true(text(again.html).includes('This connection attempt expired or was started in another browser.'));
  const connections = await world.call('GET', '/v2/calendars', { token: user.apiKey });
  t.is(connections.body.data.length, 1);
});

test.serial('a callback carried to another browser (no binding cookie) connects nothing', async (t) => {
  const victim = await insertUser(knex());
  const attacker = await insertUser(knex());
  // The attacker starts a flow in their own session and lures the victim to the callback URL.
  const callback = await authorizeAtGoogle(await startConnect(await signedIn(world, attacker)));
  const victimBrowser = await signedIn(world, victim);
  const landed = page(await victimBrowser.open(callback));
  t.true(text(landed.html).includes('This connection attempt expired or was started in another browser.'));
  for (const user of [victim, attacker])
    t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);
});

test.serial(
  'a callback for another signed-in account than the one that started connects nothing',
  async (t) => {
    const first = await insertUser(knex());
    const second = await insertUser(knex());
    const browser = await signedIn(world, first);
    const callback = await authorizeAtGoogle(await startConnect(browser));
    // Same browser, but by now signed out and signed in as someone else.
    const account = page(await browser.open('/auth/settings'));
    const signIn = page(await browser.submit(account, '/auth/settings/sign-out', {}));
    const switched = page(
      await browser.submit(signIn, '/auth/settings/sign-in', {
        email: second.email,
        password: second.password,
      }),
    );
    t.true(text(switched.html).includes(second.email));
    page(await browser.open(callback));
    for (const user of [first, second])
      t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);
  },
);

test.serial('a denial at Google returns to the page with a message; nothing is saved', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  google.deny = true;
  const callback = await authorizeAtGoogle(await startConnect(browser));
  t.is(callback.searchParams.get('error'), 'access_denied');
  const landed = page(await browser.open(callback));
  t.true(text(landed.html).includes('You did not allow access to Google Calendar. Nothing was connected.'));
  t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);
});

test.serial(
  'access granted without free/busy (unticked on the consent screen): a message, nothing saved',
  async (t) => {
    const user = await insertUser(knex());
    const browser = await signedIn(world, user);
    google.grantOnly = [
      'https://www.googleapis.com/auth/calendar.calendarlist.readonly',
      'https://www.googleapis.com/auth/calendar.events.owned',
    ];
    const landed = page(await browser.open(await authorizeAtGoogle(await startConnect(browser))));
    t.true(
      text(landed.html).includes(
        'You allowed only part of the access to Google Calendar that scheduling needs',
      ),
      text(landed.html),
    );
    t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);
  },
);

test.serial('a forged callback (unknown state, made-up code) connects nothing', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const forged = new URL('/auth/calendars/oauth/google/callback', world.system.url);
  forged.search = new URLSearchParams({ code: '4/forged', state: 'x'.repeat(43) }).toString();
  const landed = page(await browser.open(forged));
  t.true(text(landed.html).includes('This connection attempt expired'));
  t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);
});

test.serial('Disconnect revokes the grant at Google and deletes the connection', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const landed = page(await browser.open(await authorizeAtGoogle(await startConnect(browser))));
  const id = /action="\/auth\/settings\/calendars\/(\d+)\/disconnect"/.exec(landed.html)?.[1];
  t.truthy(id);
  const before = google.revoked.length;
  const after = page(await browser.submit(landed, `${CALENDARS}/${id}/disconnect`, {}));
  t.true(text(after.html).includes('Calendar disconnected.'));
  t.is(google.revoked.length, before + 1);
  t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);
});

test.serial(
  'Deleting the account revokes its calendar grant at Google too; a refused deletion revokes nothing',
  async (t) => {
    const user = await insertUser(knex());
    const browser = await signedIn(world, user);
    page(await browser.open(await authorizeAtGoogle(await startConnect(browser))));
    const before = google.revoked.length;
    // The last owner of an organization cannot go (409): the grant stays.
    const orgId = await insertOrganization(knex());
    await insertMembership(knex(), { userId: user.id, organizationId: orgId, role: 'OWNER' });
    t.is((await world.call('DELETE', '/v2/me', { token: user.apiKey })).status, 409);
    t.is(google.revoked.length, before);

    await knex()('memberships').where({ user_id: user.id }).del();
    t.is((await world.call('DELETE', '/v2/me', { token: user.apiKey })).status, 204);
    t.is(google.revoked.length, before + 1);
    t.is(await knex()('calendar_connections').where({ user_id: user.id }).first(), undefined);
  },
);

test.serial('Microsoft, not configured: not offered, and its connect path is 404', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const list = page(await browser.open(CALENDARS));
  t.true(text(list.html).includes('Connect Google Calendar'));
  t.false(text(list.html).includes('Connect Outlook Calendar'));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const response = await browser.request(`${CALENDARS}/connect/microsoft`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf }),
  });
  t.is(response.status, 404);
});
