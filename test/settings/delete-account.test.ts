import test from 'ava';
import { insertMembership, insertOrganization, insertTeam, insertUser } from '../support/factories.ts';
import { FlowBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// Account deletion in the settings (password re-entered on the page; refused while the user is the
// last OWNER): the same library call as DELETE /v2/me (test/api/delete-me.test.ts covers what
// goes); here the page's own rules.

const DELETE = '/auth/settings/delete-account';
const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();

test('the page warns what goes; the right password deletes the account, ends the session and says goodbye', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const elsewhere = await signedIn(world, user);
  const form = page(await browser.open(DELETE));
  t.is(form.status, 200);
  t.true(text(form.html).includes('This cannot be undone.'));
  t.true(text(form.html).includes('cancels every upcoming booking you host'));
  const done = await post(browser, form, DELETE, { password: user.password });
  t.is(done.status, 200);
  t.true(text(done.html).includes('Your account was deleted'));
  t.true(text(done.html).includes('Goodbye'));
  t.is(await knex()('users').where({ id: user.id }).first(), undefined);
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 401);
  for (const b of [browser, elsewhere]) {
    const after = page(await b.open('/auth/settings'));
    t.is(after.url.pathname, '/auth/settings/sign-in');
  }
});

test('a wrong or missing password is 400 and deletes nothing', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  for (const [password, message] of [
    ['', 'Enter your password.'],
    ['not my password', 'Your password is not correct.'],
  ] as const) {
    const form = page(await browser.open(DELETE));
    const refused = await post(browser, form, DELETE, { password });
    t.is(refused.status, 400);
    t.true(text(refused.html).includes(message));
  }
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
});

test('the last owner sees what to hand over, and the deletion is refused with 409', async (t) => {
  const user = await insertUser(knex());
  const orgId = await insertOrganization(knex(), { name: 'Acme' });
  await insertMembership(knex(), { userId: user.id, organizationId: orgId, role: 'OWNER' });
  const teamId = await insertTeam(knex(), orgId, { name: 'Support' });
  await insertMembership(knex(), { userId: user.id, teamId, role: 'OWNER' });
  const browser = await signedIn(world, user);
  const form = page(await browser.open(DELETE));
  t.true(text(form.html).includes('You are the last owner of:'));
  t.true(text(form.html).includes('Organization Acme'));
  t.true(text(form.html).includes('Team Support'));
  const refused = await post(browser, form, DELETE, { password: user.password });
  t.is(refused.status, 409);
  t.true(
    text(refused.html).includes(
      'You are the last owner of: organization "Acme", team "Support". Hand ownership to someone else or delete them first.',
    ),
  );
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
  t.is(page(await browser.open('/auth/settings')).url.pathname, '/auth/settings', 'still signed in');
});

test('the form needs the CSRF token of the signed-in user; signed out it goes to sign-in', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const forged = await rawPost(browser, DELETE, { password: user.password });
  t.is(forged.status, 403);
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
  const anonymous = new FlowBrowser(world.system.url);
  const result = page(await anonymous.open(DELETE));
  t.is(result.url.pathname, '/auth/settings/sign-in');
});
