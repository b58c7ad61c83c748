import { profilePatch } from '@sched/policy/user-fields';
import test from 'ava';
import { updateMeBody } from '@sched/api/routes/me/update-me';
import { insertUser, type TestUser } from '../support/factories.ts';
import { waitForMail } from '../support/mail.ts';
import type { FlowBrowser, PageResult } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// The profile page (name, username, time zone with a searchable list grouped by region, week
// start, locale, time format; same rules as `PATCH /v2/me`) and the
// resend-verification button, over HTTP. Every save is checked through `GET /v2/me`.

const PROFILE = '/auth/settings/profile';
const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();

const me = async (user: TestUser) => {
  const response = await call('GET', '/v2/me', { token: user.apiKey });
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  return response.body.data;
};

/** The profile form's current values (what a browser would submit unchanged). */
function currentValues(html: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of ['name', 'username']) {
    values[name] = new RegExp(`id="${name}" name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1] ?? '';
  }
  for (const name of ['timeZone', 'weekStart', 'locale', 'timeFormat']) {
    const select = new RegExp(`<select id="${name}"[\\s\\S]*?</select>`).exec(html)?.[0] ?? '';
    values[name] = /<option value="([^"]*)" selected>/.exec(select)?.[1] ?? '';
  }
  return values;
}

async function openProfile(user: TestUser): Promise<{ browser: FlowBrowser; form: PageResult }> {
  const browser = await signedIn(world, user);
  const form = page(await browser.open(PROFILE));
  return { browser, form };
}

const save = (browser: FlowBrowser, form: PageResult, changes: Record<string, string>) =>
  post(browser, form, PROFILE, { ...currentValues(form.html), ...changes });

test('the page uses the rules of PATCH /v2/me (one schema)', (t) => {
  t.is(updateMeBody, profilePatch);
});

test('saving every field shows on GET /v2/me at the next request', async (t) => {
  const user = await insertUser(knex(), { name: 'Pia Profile' });
  const before = await me(user); // cached by the API now
  t.is(before.name, 'Pia Profile');
  const { browser, form } = await openProfile(user);
  t.is(form.status, 200);
  const saved = await save(browser, form, {
    name: 'Pia Neuname',
    username: `pia-${user.id}`,
    timeZone: 'America/Argentina/Buenos_Aires',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: '24',
  });
  t.is(saved.status, 200);
  t.is(saved.url.pathname, PROFILE);
  t.true(text(saved.html).includes('Profile saved.'));
  const after = await me(user);
  t.like(after, {
    name: 'Pia Neuname',
    username: `pia-${user.id}`,
    timeZone: 'America/Argentina/Buenos_Aires',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: 24,
  });
  // The page shows the saved values.
  t.like(currentValues(saved.html), { timeZone: 'America/Argentina/Buenos_Aires', locale: 'pt-BR' });
});

test('empty name, username and time format clear them (null), as PATCH /v2/me allows', async (t) => {
  const user = await insertUser(knex(), { name: 'Clara Clear', username: null });
  const { browser, form } = await openProfile(user);
  await save(browser, form, { username: `clara-${user.id}`, timeFormat: '12' });
  t.like(await me(user), { username: `clara-${user.id}`, timeFormat: 12 });
  const again = page(await browser.open(PROFILE));
  const cleared = await save(browser, again, { name: '  ', username: '', timeFormat: '' });
  t.is(cleared.status, 200);
  t.like(await me(user), { name: null, username: null, timeFormat: null });
});

test('the time-zone list is grouped by region, holds every zone and the search box is for the script', async (t) => {
  const user = await insertUser(knex(), { timeZone: 'Europe/Berlin' });
  const { form } = await openProfile(user);
  for (const region of ['Africa', 'America', 'Asia', 'Australia', 'Europe', 'Pacific'])
    t.regex(form.html, new RegExp(`<optgroup label="${region}">`));
  const europe = /<optgroup label="Europe">([\s\S]*?)<\/optgroup>/.exec(form.html)?.[1] ?? '';
  t.regex(europe, /<option value="Europe\/Berlin" selected>Berlin \(Europe\/Berlin\)<\/option>/);
  t.notRegex(europe, /America\//);
  const zones = [...form.html.matchAll(/<option value="([A-Za-z_]+\/[^"]+)"/g)].length;
  t.true(zones >= Intl.supportedValuesOf('timeZone').length - 5, `${zones} zones`);
  t.regex(form.html, /<input id="timeZone-search"[^>]*type="search"[^>]*hidden>/);
  // The page allows exactly its own script.
  const response = await (await signedIn(world, user)).request(PROFILE);
  t.regex(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.regex(await response.text(), /<script src="\/auth\/settings\/assets\/time-zones\.js" defer><\/script>/);
  const script = await fetch(new URL('/auth/settings/assets/time-zones.js', world.system.url));
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /javascript/);
  t.regex(await script.text(), /optgroup/);
});

test('a zone the runtime lists under an alias (set through the API) stays selected', async (t) => {
  const user = await insertUser(knex());
  const patched = await call('PATCH', '/v2/me', { token: user.apiKey, body: { timeZone: 'US/Pacific' } });
  t.is(patched.status, 200);
  const { browser, form } = await openProfile(user);
  t.is(currentValues(form.html).timeZone, 'US/Pacific');
  const saved = await save(browser, form, { name: 'Alias Kept' });
  t.is(saved.status, 200);
  t.like(await me(user), { timeZone: 'US/Pacific', name: 'Alias Kept' });
});

for (const [field, value] of [
  ['timeZone', 'Mars/Olympus_Mons'],
  ['weekStart', 'Funday'],
  ['locale', 'xx-YY'],
  ['timeFormat', '13'],
  ['username', 'no spaces allowed'],
  ['name', 'x'.repeat(201)],
] as const) {
  test(`an invalid ${field} is refused with 400 next to the field, and nothing changes`, async (t) => {
    const user = await insertUser(knex(), { name: 'Vera Valid' });
    const { browser, form } = await openProfile(user);
    const refused = await save(browser, form, { name: 'Changed Too', [field]: value });
    t.is(refused.status, 400);
    t.regex(refused.html, new RegExp(`id="${field}-error"`));
    t.regex(refused.html, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
    t.is((await me(user)).name, 'Vera Valid');
    // The API refuses the same value.
    const body: Record<string, unknown> = { [field]: field === 'timeFormat' ? 13 : value };
    t.is((await call('PATCH', '/v2/me', { token: user.apiKey, body })).status, 400);
  });
}

test("someone else's username is 409 on the form", async (t) => {
  const taken = `taken-${Date.now().toString(36)}`;
  await insertUser(knex(), { username: taken });
  const user = await insertUser(knex());
  const { browser, form } = await openProfile(user);
  const refused = await save(browser, form, { username: taken.toUpperCase() });
  t.is(refused.status, 409);
  t.true(text(refused.html).includes('This username is taken.'));
});

test('the form needs the CSRF token of the signed-in user', async (t) => {
  const user = await insertUser(knex(), { name: 'Csrf Person' });
  const { browser, form } = await openProfile(user);
  const refused = await rawPost(browser, PROFILE, { ...currentValues(form.html), name: 'Forged' });
  t.is(refused.status, 403);
  t.is((await me(user)).name, 'Csrf Person');
});

test('signed out, the page sends to the sign-in page and back', async (t) => {
  const { FlowBrowser } = await import('../support/oauth.ts');
  const anonymous = new FlowBrowser(world.system.url);
  const result = page(await anonymous.open(PROFILE));
  t.is(result.url.pathname, '/auth/settings/sign-in');
  t.is(result.url.searchParams.get('return'), PROFILE);
});

test('verified: the page says so and offers no resend button', async (t) => {
  const user = await insertUser(knex());
  const { form } = await openProfile(user);
  t.true(text(form.html).includes('Verified'));
  t.notRegex(form.html, /Resend verification e-mail/);
});

test('unverified: Resend verification e-mail sends a new link; a verified account gets nothing', async (t) => {
  const user = await insertUser(knex(), { name: 'Una Verified' });
  await knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  const { browser, form } = await openProfile(user);
  t.true(text(form.html).includes('Not verified'));
  const sent = await post(browser, form, '/auth/settings/profile/verification-email');
  t.is(sent.status, 200);
  t.is(sent.url.pathname, PROFILE);
  t.true(text(sent.html).includes('We sent a new verification link.'));
  const mail = await waitForMail(world, user.email, 'Verify your email address');
  const link = /https?:\/\/\S+\/auth\/verify-email\?token=[A-Za-z0-9_%-]+/.exec(mail.text)?.[0];
  t.truthy(link);
  await browser.open(link!);
  t.truthy((await knex()('users').where({ id: user.id }).first('email_verified_at')).email_verified_at);
});

test('the resend button is rate-limited per user (429 page)', async (t) => {
  const user = await insertUser(knex());
  await knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  const { browser, form } = await openProfile(user);
  let last = 0;
  for (let i = 0; i < 6; i++) {
    const result = await rawPost(browser, '/auth/settings/profile/verification-email', {
      _csrf: formCsrf(form.html),
    });
    last = result.status;
    if (last === 429) break;
  }
  t.is(last, 429);
});

const formCsrf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

test('Resend for an address verified meanwhile sends nothing and says it is verified', async (t) => {
  const user = await insertUser(knex());
  await knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  const { browser, form } = await openProfile(user);
  await knex()('users').where({ id: user.id }).update({ email_verified_at: new Date() });
  const answer = await post(browser, form, '/auth/settings/profile/verification-email');
  t.is(answer.status, 200);
  t.true(text(answer.html).includes('Your e-mail address is already verified.'));
  t.is(world.smtp.received.filter((m) => m.to.includes(user.email)).length, 0);
});
