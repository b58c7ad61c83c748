import { randomBytes } from 'node:crypto';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { authorizeUrl, FlowBrowser, formOf, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import {
  askForReset,
  completeReset,
  linkInMail,
  nextMail,
  page,
  RESET_SUBJECT,
  signInToSettings,
  text,
} from './accounts.ts';

// A sign-in step that has succeeded but whose authorization the browser has not resumed yet is a
// session in waiting: a password reset (which ends every session) and a password change (which
// ends the other sessions) end it too. Otherwise whoever knew the old password signs in, holds the
// resume address (an interaction lives an hour, and a new one can be made every hour), and follows
// it after the owner took the account back: a fresh session of the account, consent, tokens.

const world = setUpWorld(test, { clients: { app: {} } });

/** Signs in at an authorization's sign-in step and stops before resuming it: the resume address. */
async function heldSignIn(
  browser: FlowBrowser,
  user: { email: string; password: string },
  prompt?: 'login',
): Promise<URL> {
  const app = world.clients.app;
  const signIn = page(
    await browser.open(
      authorizeUrl(world.system.url, {
        client_id: app.client.id,
        redirect_uri: app.redirectUri,
        scope: app.client.scopes.join(' '),
        state: randomBytes(6).toString('hex'),
        code_challenge: pkcePair().challenge,
        ...(prompt ? { prompt } : {}),
      }),
    ),
  );
  const form = formOf(signIn.html, '/signin');
  if (!form) throw new Error(`no sign-in form:\n${signIn.html}`);
  const response = await browser.request(new URL(form.action, signIn.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, email: user.email, password: user.password }),
  });
  await response.arrayBuffer();
  const location = response.headers.get('location');
  if (response.status !== 303 || !location) throw new Error(`sign-in not accepted: ${response.status}`);
  return new URL(location, signIn.url);
}

/** What following the held resume address gives: never the account's consent, code or settings. */
async function assertNoWayIn(t: import('ava').ExecutionContext, browser: FlowBrowser, resume: URL) {
  const resumed = await browser.open(resume);
  t.is(resumed.kind, 'page', 'no code for the client');
  if (resumed.kind !== 'page') return;
  t.false(resumed.html.includes('/consent"'), `no consent page: ${text(resumed.html)}`);
  const settings = page(await browser.open('/auth/settings'));
  t.is(settings.url.pathname, '/auth/settings/sign-in', 'no session of the account');
}

test('a sign-in held before a password reset does not sign in after it', async (t) => {
  const user = await insertUser(world.knex());
  const attacker = new FlowBrowser(world.system.url);
  const resume = await heldSignIn(attacker, user);

  await askForReset(world, user.email);
  const link = linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password');
  t.is((await completeReset(world, link, 'the owner takes it back')).status, 200);

  await assertNoWayIn(t, attacker, resume);
});

test('a sign-in held before a password change does not sign in after it', async (t) => {
  const user = await insertUser(world.knex());
  const attacker = new FlowBrowser(world.system.url);
  const resume = await heldSignIn(attacker, user);

  const { browser: owner, landed } = await signInToSettings(world, user.email, user.password);
  t.is(landed.url.pathname, '/auth/settings');
  const form = page(await owner.open('/auth/settings/password'));
  const changed = page(
    await owner.submit(form, '/auth/settings/password', {
      currentPassword: user.password,
      newPassword: 'a changed password',
      confirmPassword: 'a changed password',
    }),
  );
  t.regex(text(changed.html), /Password changed/);

  await assertNoWayIn(t, attacker, resume);
});

test('a held sign-in that nothing ended still resumes to consent as before', async (t) => {
  const user = await insertUser(world.knex());
  const browser = new FlowBrowser(world.system.url);
  const resume = await heldSignIn(browser, user);
  const resumed = page(await browser.open(resume));
  t.true(resumed.html.includes('/consent"'), text(resumed.html));
  const settings = page(await browser.open('/auth/settings'));
  t.is(settings.url.pathname, '/auth/settings');
});

test('a session cookie planted in the browser before a sign-in step does not get the account', async (t) => {
  const attacker = await insertUser(world.knex());
  const victim = await insertUser(world.knex());
  const { browser: planter } = await signInToSettings(world, attacker.email, attacker.password);
  const browser = new FlowBrowser(world.system.url);
  for (const [key, cookie] of planter.jar.cookies) {
    if (cookie.name.startsWith('auth.session')) browser.jar.cookies.set(key, cookie);
  }
  t.true(text(page(await browser.open('/auth/settings')).html).includes(attacker.email), 'planted');

  const resume = await heldSignIn(browser, victim, 'login');
  const before = page(await planter.open('/auth/settings'));
  t.false(text(before.html).includes(victim.email), 'not the victim before the authorization resumes');
  t.true(page(await browser.open(resume)).html.includes('/consent"'));
  const after = page(await planter.open('/auth/settings'));
  t.false(text(after.html).includes(victim.email), 'nor after');
  t.true(text(page(await browser.open('/auth/settings')).html).includes(victim.email));
});
