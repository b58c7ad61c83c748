import { listAuditEvents } from '@sched/db/queries/audit-log';
import test from 'ava';
import { insertUser, type TestUser } from '../support/factories.ts';
import { FlowBrowser } from '../support/oauth.ts';
import { beforeNextSessionSave } from '../support/tokens.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// Password change in the settings (current password required; ends the account's other
// sessions), over HTTP with two cookie-keeping browsers.

const PASSWORD = '/auth/settings/password';
const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();

/** Whether `browser` is still signed in (the page opens instead of the sign-in form). */
const isSignedIn = async (browser: FlowBrowser) =>
  page(await browser.open('/auth/settings')).url.pathname === '/auth/settings';

/** Whether `password` signs `user` in on a fresh browser. */
async function signsIn(user: TestUser, password: string): Promise<boolean> {
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open('/auth/settings/sign-in'));
  const result = page(await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password }));
  return result.url.pathname === '/auth/settings' && result.status === 200;
}

async function change(browser: FlowBrowser, fields: Record<string, string>) {
  const form = page(await browser.open(PASSWORD));
  return post(browser, form, PASSWORD, fields);
}

test('changing the password keeps this browser signed in and signs out the others', async (t) => {
  const user = await insertUser(knex());
  const here = await signedIn(world, user);
  const elsewhere = await signedIn(world, user);
  t.true(await isSignedIn(elsewhere));
  const done = await change(here, {
    currentPassword: user.password,
    newPassword: 'a brand new password',
    confirmPassword: 'a brand new password',
  });
  t.is(done.status, 200);
  t.is(done.url.pathname, PASSWORD);
  t.true(text(done.html).includes('Password changed. Your other sessions were signed out.'));
  t.true(await isSignedIn(here), 'this browser stays signed in');
  t.false(await isSignedIn(elsewhere), 'the other browser is signed out');
  t.false(await signsIn(user, user.password), 'the old password no longer works');
  t.true(await signsIn(user, 'a brand new password'));
  // API keys are not sessions: they keep working.
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
  // Audited as the account's own change, with the request; never the password.
  const { events } = await listAuditEvents(
    knex(),
    { targetType: 'user', targetId: String(user.id), action: 'user.password_changed' },
    { take: 5 },
  );
  t.is(events.length, 1);
  t.like(events[0], { actor: { kind: 'user', userId: user.id }, after: { hasPassword: true } });
  t.truthy(events[0]!.requestId);
  t.truthy(events[0]!.ipAddress);
  const shown = JSON.stringify(events);
  t.false(shown.includes('a brand new password') || shown.includes(user.password));
});

test.serial(
  'a sign-in that checked the old password just before a change does not outlive it, though its session is saved after',
  async (t) => {
    const user = await insertUser(knex());
    const here = await signedIn(world, user);
    const elsewhere = new FlowBrowser(world.system.url);
    const form = page(await elsewhere.open('/auth/settings/sign-in'));
    // The change runs to its end (other sessions ended) between that sign-in's check and its session.
    const hook = beforeNextSessionSave(world.system.stores.tokenStore, String(user.id), () =>
      change(here, {
        currentPassword: user.password,
        newPassword: 'a brand new password',
        confirmPassword: 'a brand new password',
      }),
    );
    try {
      await elsewhere.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password });
    } finally {
      hook.restore();
    }
    t.is((await hook.ran).status, 200, 'the change went through in between');
    t.false(await isSignedIn(elsewhere), "the old password's sign-in is signed out");
    t.true(await isSignedIn(here), 'the browser that changed it stays signed in');
  },
);

test('a wrong current password is 400 and changes nothing (no session ends)', async (t) => {
  const user = await insertUser(knex());
  const here = await signedIn(world, user);
  const elsewhere = await signedIn(world, user);
  const refused = await change(here, {
    currentPassword: 'not the password',
    newPassword: 'a brand new password',
    confirmPassword: 'a brand new password',
  });
  t.is(refused.status, 400);
  t.true(text(refused.html).includes('Your current password is not correct.'));
  t.true(await isSignedIn(elsewhere));
  t.true(await signsIn(user, user.password));
  const { events } = await listAuditEvents(
    knex(),
    { targetType: 'user', targetId: String(user.id), action: 'user.password_changed' },
    { take: 5 },
  );
  t.deepEqual(events, [], 'a refused change writes no event');
});

test('the current password is required', async (t) => {
  const user = await insertUser(knex());
  const here = await signedIn(world, user);
  const refused = await change(here, {
    newPassword: 'a brand new password',
    confirmPassword: 'a brand new password',
  });
  t.is(refused.status, 400);
  t.true(text(refused.html).includes('Enter your current password.'));
  t.true(await signsIn(user, user.password));
});

test('the new password follows the sign-up rule (8 to 256 characters)', async (t) => {
  const user = await insertUser(knex());
  const here = await signedIn(world, user);
  for (const candidate of ['short', 'x'.repeat(257)]) {
    const refused = await change(here, {
      currentPassword: user.password,
      newPassword: candidate,
      confirmPassword: candidate,
    });
    t.is(refused.status, 400);
    t.true(text(refused.html).includes('Use at least 8 characters (at most 256).'));
  }
  t.true(await signsIn(user, user.password));
});

test('the two new passwords must match', async (t) => {
  const user = await insertUser(knex());
  const here = await signedIn(world, user);
  const refused = await change(here, {
    currentPassword: user.password,
    newPassword: 'a brand new password',
    confirmPassword: 'a brand new passwort',
  });
  t.is(refused.status, 400);
  t.true(text(refused.html).includes('The two new passwords do not match.'));
  t.true(await signsIn(user, user.password));
});

test('the form needs the CSRF token of the signed-in user', async (t) => {
  const user = await insertUser(knex());
  const here = await signedIn(world, user);
  const refused = await rawPost(here, PASSWORD, {
    currentPassword: user.password,
    newPassword: 'a brand new password',
    confirmPassword: 'a brand new password',
  });
  t.is(refused.status, 403);
  t.true(await signsIn(user, user.password));
});
