import test from 'ava';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair } from '../support/oauth.ts';
import { insertUser, insertClient } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { CLIENTS, page, rawPost, signedIn, text } from './helpers.ts';

// Sign-in for the settings pages: the authorization server's own session (one sign-in for both),
// the same failure counters and locks as the authorization sign-in, CSRF, headers and cookies.

const world = setUpWorld(test);

test('every settings and admin page sends a signed-out browser to sign in and back', async (t) => {
  const user = await insertUser(world.knex());
  for (const path of [
    '/auth/settings',
    CLIENTS,
    `${CLIENTS}/new`,
    `${CLIENTS}/some-client`,
    '/auth/admin/oauth-clients',
  ]) {
    const response = await fetch(`${world.system.url}${path}`, { redirect: 'manual' });
    t.is(response.status, 303, path);
    t.is(response.headers.get('location'), `/auth/settings/sign-in?return=${encodeURIComponent(path)}`, path);
  }
  for (const path of [
    CLIENTS,
    `${CLIENTS}/x/secrets`,
    `${CLIENTS}/x/delete`,
    '/auth/admin/oauth-clients/x/approve',
  ]) {
    const response = await fetch(`${world.system.url}${path}`, { method: 'POST', redirect: 'manual' });
    t.is(response.status, 303, path);
    t.true(response.headers.get('location')?.startsWith('/auth/settings/sign-in?return='), path);
  }
  // Signing in comes back to the page asked for.
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open(`${CLIENTS}/new`));
  const back = page(
    await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password }),
  );
  t.is(back.url.pathname, `${CLIENTS}/new`);
  t.is(back.status, 200);
  t.true(back.html.includes('New OAuth client'));
});

test('the return address is only ever a settings or admin page', async (t) => {
  const user = await insertUser(world.knex());
  for (const evil of [
    'https://evil.example/',
    '//evil.example/x',
    '/auth/settings/../../v2/x',
    '/v2/oauth-clients',
    'javascript:alert(1)',
  ]) {
    const browser = new FlowBrowser(world.system.url);
    const form = page(await browser.open(`/auth/settings/sign-in?return=${encodeURIComponent(evil)}`));
    const back = page(
      await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password }),
    );
    t.is(back.url.pathname, '/auth/settings', evil);
  }
});

test('account overview: name, username, e-mail, time zone, week start and calendar', async (t) => {
  const user = await insertUser(world.knex(), { name: 'Ada Lovelace' });
  const knex = world.system.stores.db.knex;
  await knex('users').where({ id: user.user.id }).update({
    username: 'ada.l',
    time_zone: 'Europe/London',
    week_start: 'Sunday',
    calendar_provider: 'google',
  });
  const browser = await signedIn(world, user);
  const account = page(await browser.open('/auth/settings'));
  const shown = text(account.html);
  for (const expected of ['Ada Lovelace', 'ada.l', user.email, 'Europe/London', 'Sunday', 'Google Calendar'])
    t.true(shown.includes(expected), expected);
  await knex('users').where({ id: user.user.id }).update({ calendar_provider: null });
  t.true(text(page(await browser.open('/auth/settings')).html).includes('Calendar Not connected'));
});

test('pages: strict CSP without scripts, framing denied, no caching; the session cookie is HttpOnly and SameSite', async (t) => {
  const user = await insertUser(world.knex());
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open('/auth/settings/sign-in'));
  const response = await browser.request('/auth/settings/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...formHidden(form.html),
      email: user.email,
      password: user.password,
      return: '/auth/settings',
    }),
  });
  t.is(response.status, 303);
  const session = response.headers.getSetCookie().find((c) => c.startsWith('auth.session='));
  t.truthy(session);
  t.regex(session!, /httponly/i);
  t.regex(session!, /samesite=lax/i);
  const account = await browser.request('/auth/settings');
  t.is(account.status, 200);
  const csp = account.headers.get('content-security-policy') ?? '';
  t.true(csp.includes("frame-ancestors 'none'"));
  t.true(csp.includes("default-src 'none'"));
  t.false(csp.includes('script-src'));
  t.is(account.headers.get('cache-control'), 'no-store');
  t.is(account.headers.get('x-frame-options')?.toUpperCase(), 'DENY');
  await account.text();
});

function formHidden(html: string): Record<string, string> {
  const hidden: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    hidden[match[1]!] = match[2]!;
  return hidden;
}

test('wrong password: 401 page; the account locks after 10 failures, also against the right password', async (t) => {
  const user = await insertUser(world.knex());
  const browser = new FlowBrowser(world.system.url);
  let form = page(await browser.open('/auth/settings/sign-in'));
  const empty = page(await browser.submit(form, '/auth/settings/sign-in', { email: '', password: '' }));
  t.is(empty.status, 400);
  for (let i = 0; i < 10; i++) {
    form = page(await browser.open('/auth/settings/sign-in'));
    const failed = page(
      await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: 'wrong-password' }),
    );
    t.is(failed.status, 401);
    t.true(failed.html.includes('Incorrect email or password.'));
  }
  form = page(await browser.open('/auth/settings/sign-in'));
  const locked = page(
    await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password }),
  );
  t.is(locked.status, 429);
  t.true(text(locked.html).includes('Too many failed sign-ins for this account'));
});

test('one sign-in covers both: settings first, then an authorization skips the sign-in step', async (t) => {
  const user = await insertUser(world.knex());
  const client = await insertClient(world.system.stores.db.knex, {
    redirectUris: ['https://app.example.com/cb'],
  });
  const browser = await signedIn(world, user);
  const url = authorizeUrl(world.system.url, {
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    scope: 'PROFILE_READ',
    state: 's1',
    code_challenge: pkcePair().challenge,
  });
  const first = page(await browser.open(url));
  t.true(first.html.includes('/consent'), 'straight to consent');
  t.false(first.html.includes('/signin"'));
});

test('one sign-in covers both: an authorization first, then the settings pages need no sign-in', async (t) => {
  const user = await insertUser(world.knex(), { name: 'Grace Hopper' });
  const client = await insertClient(world.system.stores.db.knex, {
    redirectUris: ['https://app.example.com/cb'],
  });
  const { outcome, browser } = await authorizeInBrowser(
    world.system.url,
    authorizeUrl(world.system.url, {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope: 'PROFILE_READ',
      state: 's2',
      code_challenge: pkcePair().challenge,
    }),
    { user },
  );
  t.is(outcome.kind, 'redirect');
  const account = page(await browser.open('/auth/settings'));
  t.is(account.url.pathname, '/auth/settings');
  t.true(account.html.includes('Grace Hopper'));
});

test('sign-out needs the CSRF token, ends the session, and the pages ask to sign in again', async (t) => {
  const user = await insertUser(world.knex());
  const browser = await signedIn(world, user);
  const forged = await rawPost(browser, '/auth/settings/sign-out', {});
  t.is(forged.status, 403);
  t.is(page(await browser.open('/auth/settings')).url.pathname, '/auth/settings');
  const account = page(await browser.open('/auth/settings'));
  const out = page(await browser.submit(account, '/auth/settings/sign-out', {}));
  t.is(out.url.pathname, '/auth/settings/sign-in');
  const again = page(await browser.open('/auth/settings'));
  t.is(again.url.pathname, '/auth/settings/sign-in');
});

test("CSRF: forms without a token, with a forged one or with another user's are refused with 403", async (t) => {
  const alice = await insertUser(world.knex());
  const bob = await insertUser(world.knex());
  const aliceBrowser = await signedIn(world, alice);
  const bobBrowser = await signedIn(world, bob);
  const bobForm = page(await bobBrowser.open(`${CLIENTS}/new`));
  const bobToken = formHidden(bobForm.html)._csrf!;
  const fields = { name: 'X', redirectUris: 'https://x.example/cb', 'scope.PROFILE_READ': 'on' };
  for (const token of [undefined, 'forged', bobToken]) {
    const response = await rawPost(
      aliceBrowser,
      CLIENTS,
      token === undefined ? fields : { ...fields, _csrf: token },
    );
    t.is(response.status, 403);
    t.true(text(response.html).includes('This form has expired'));
  }
  t.is(
    await world.system.stores.db
      .knex('oauth_clients')
      .where({ owner_user_id: alice.user.id })
      .count()
      .first()
      .then((r) => Number((r as { count: string }).count)),
    0,
  );
});
