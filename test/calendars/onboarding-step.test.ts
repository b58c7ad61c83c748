import { setConnectionStatus } from '@sched/db/queries/calendar-connections';
import { findUserById } from '@sched/db/queries/users';
import test from 'ava';
import { createEmbedClient, embedUrl, pageMessage } from '../embed-flow/helpers.ts';
import { insertUser, type TestClient, type TestUser } from '../support/factories.ts';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.ts';
import { FlowBrowser, type PageResult, pkcePair, type RedirectResult } from '../support/oauth.ts';
import { setUpRadicale } from '../support/radicale.ts';
import { setUpWorld } from '../support/world.ts';
import { text } from '../settings/helpers.ts';

// The onboarding embed's calendar step over HTTP: CalDAV connected in the step against a real
// radicale (refused, then connected, then Continue to consent), and the Google link's single-use
// ticket that lets a new first-party window connect for the frame's user.

const PARENT = 'http://127.0.0.1:4557';
const alex = { username: 'alex', password: 'correct horse battery staple' };
const radicale = setUpRadicale(test, [alex]);
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
let client: TestClient;

test.before(async () => {
  client = await createEmbedClient(world.knex(), PARENT);
  await radicale.makeCalendar(alex, 'work', 'Work');
});

function asPage(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

/** A user left at the calendar step, signed in inside the embed: the step's page. */
async function atCalendarStep(): Promise<{ user: TestUser; browser: FlowBrowser; step: PageResult }> {
  const user = await insertUser(world.knex());
  await world.knex()('users').where({ id: user.id }).update({ onboarding_step: 'calendar' });
  const browser = new FlowBrowser(world.system.url);
  const entry = asPage(
    await browser.open(
      embedUrl(world.system.url, { client, parentOrigin: PARENT, challenge: pkcePair().challenge }),
    ),
  );
  const signInHref = /href="([^"]*\/signin)"/.exec(entry.html)?.[1];
  const signIn = asPage(await browser.open(new URL(signInHref!, world.system.url)));
  const step = asPage(
    await browser.submit(signIn, '/signin', { email: user.email, password: user.password }),
  );
  if (!/Connect your calendar/.test(step.html)) throw new Error(`not the calendar step:\n${step.html}`);
  return { user, browser, step };
}

/** Connects alex's CalDAV account from the step's form (at `serverUrl`): the step's page afterwards. */
async function connectCalDavInStep(
  browser: FlowBrowser,
  step: PageResult,
  serverUrl = radicale.url,
): Promise<PageResult> {
  return asPage(
    await browser.submit(step, '/calendar/caldav', {
      serverUrl,
      username: alex.username,
      password: alex.password,
    }),
  );
}

/** The step's link to the Google window (Connect, or Reconnect when `name` says so), as a browser resolves it. */
function googleLink(step: PageResult, name = 'Connect Google Calendar'): URL {
  const href = new RegExp(
    `<a [^>]*href="([^"]*/auth/calendars/connect/google\\?ticket=[^"]+)"[^>]*>${name}</a>`,
  ).exec(step.html)?.[1];
  if (!href) throw new Error(`no link "${name}" to Google on the step:\n${step.html}`);
  return new URL(href.replace(/&amp;/g, '&'), world.system.url);
}

/** The new window the step opens for `link`: confirm, through (fake) Google and back; the window's last page. */
async function throughGoogleWindow(link: URL): Promise<PageResult> {
  const window = new FlowBrowser(world.system.url);
  const confirm = asPage(await window.open(link));
  const started = await window.submit(confirm, '/auth/calendars/connect/google', {});
  if (started.kind !== 'redirect') throw new Error(`not sent to Google:\n${started.html}`);
  const back = await fetch(started.url, { redirect: 'manual' });
  return asPage(await window.open(back.headers.get('location')!));
}

/** The item of the step's list of connections that names `name` (its html), or null. */
function listedConnection(step: PageResult, name: string): string | null {
  const list = /<ul class="calendar-list"[^>]*>([\s\S]*?)<\/ul>/.exec(step.html)?.[1] ?? '';
  return list.match(/<li>[\s\S]*?<\/li>/g)?.find((item) => text(item).includes(name)) ?? null;
}

/** The step's Reconnect link: its href (entities decoded) and whether it opens a new window. */
function reconnectLink(step: PageResult): { href: string; newWindow: boolean } | null {
  const tag = /<a [^>]*>Reconnect<\/a>/.exec(step.html)?.[0];
  if (!tag) return null;
  return {
    href: /href="([^"]*)"/.exec(tag)![1]!.replace(/&amp;/g, '&'),
    newWindow: tag.includes('target="_blank"'),
  };
}

test('CalDAV in the step: refused credentials say so and save nothing; then connected, Continue reaches consent', async (t) => {
  const { user, browser, step } = await atCalendarStep();
  const refused = asPage(
    await browser.submit(step, '/calendar/caldav', {
      serverUrl: radicale.url,
      username: alex.username,
      password: 'wrong',
    }),
  );
  t.is(refused.status, 400);
  t.true(text(refused.html).includes('The calendar server refused these credentials'));
  t.is(pageMessage(refused.html)?.code, 'ONBOARDING_FAILED');
  t.deepEqual((await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data, []);

  const connected = await connectCalDavInStep(browser, refused);
  t.true(text(connected.html).includes('CalDAV: alex'), 'the step lists the new connection');
  t.false(connected.html.includes(alex.password));
  const consent = asPage(await browser.submit(connected, '/calendar', { action: 'continue' }));
  t.regex(consent.html, /Acme Bookings wants to access your account/);
  const done = (await findUserById(world.knex(), user.id))!;
  t.is(done.onboardingStep, 'complete');
  t.is(done.calendarProvider, 'caldav');
  const [connection] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.like(connection, { provider: 'caldav', account: 'alex', status: 'active' });
});

test("the Google link: a single-use ticket starts the flow in a new window for the frame's user, once they confirm", async (t) => {
  const { user, step } = await atCalendarStep();
  const href = /href="([^"]*\/auth\/calendars\/connect\/google\?ticket=[^"]+)"/.exec(step.html)?.[1];
  t.truthy(href);
  const link = new URL(href!.replace(/&amp;/g, '&'), world.system.url);
  // A new top-level window: none of the frame's (partitioned) cookies.
  const window = new FlowBrowser(world.system.url);
  const confirm = asPage(await window.open(link));
  t.is(confirm.status, 200, 'the link alone does not leave for Google');
  t.true(text(confirm.html).includes(`connected to the scheduling account ${user.email}`));
  const started = await window.submit(confirm, '/auth/calendars/connect/google', {});
  t.is(started.kind, 'redirect');
  t.is(`${started.url.origin}${started.url.pathname}`, `${google.url}/o/oauth2/v2/auth`);
  const again = asPage(await new FlowBrowser(world.system.url).open(link));
  t.is(again.status, 400, 'the ticket is spent');
  t.true(text(again.html).includes('This connection attempt expired'));

  const back = await fetch((started as RedirectResult).url, { redirect: 'manual' });
  const done = asPage(await window.open(back.headers.get('location')!));
  t.is(done.status, 200);
  t.true(text(done.html).includes('Google Calendar connected'));
  const [connection] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.like(connection, { provider: 'google', account: 'ada@example.com' });
});

test('the Google link sent to someone else: nothing starts without the form of the browser that opened it', async (t) => {
  const { step } = await atCalendarStep();
  const href = /href="([^"]*\/auth\/calendars\/connect\/google\?ticket=[^"]+)"/.exec(step.html)?.[1];
  const link = new URL(href!.replace(/&amp;/g, '&'), world.system.url);
  const ticket = link.searchParams.get('ticket')!;
  // Another site posting the ticket (a cross-site form): no CSRF token of the victim's browser.
  const victim = new FlowBrowser(world.system.url);
  const forged = await victim.request(link.pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ticket }),
  });
  t.is(forged.status, 403);
  t.is(forged.headers.get('location'), null, 'no redirect to Google');
  // The ticket was not spent: its own user can still confirm.
  const confirm = asPage(await victim.open(link));
  t.is(confirm.status, 200);
  t.is((await victim.submit(confirm, '/auth/calendars/connect/google', {})).kind, 'redirect');
});

test('a made-up ticket starts nothing', async (t) => {
  const page = asPage(
    await new FlowBrowser(world.system.url).open(`/auth/calendars/connect/google?ticket=${'a'.repeat(43)}`),
  );
  t.is(page.status, 400, 'no redirect to Google');
});

test('the step shows the calendars after a connection, and Continue saves which are checked and the destination', async (t) => {
  const { user, browser, step } = await atCalendarStep();
  await radicale.makeCalendar(alex, `home-${user.id}`, 'Home');
  const connected = await connectCalDavInStep(browser, step);
  t.true(text(connected.html).includes('Choose your calendars'));
  const [before] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  const work = before.calendars.find((calendar: { name: string }) => calendar.name === 'Work');
  const home = before.calendars.find((calendar: { name: string }) => calendar.name === 'Home');
  t.true(work.checkForConflicts && home.checkForConflicts, 'every owned calendar is checked by default');
  t.true(
    connected.html.includes(
      `name="conflicts.${home.id}" value="on" aria-label="Check Home for conflicts" checked`,
    ),
  );

  // As a browser posts it: Work's box left ticked, Home's unticked, Home chosen as the destination.
  await browser.submit(connected, '/calendar', {
    action: 'continue',
    [`conflicts.${work.id}`]: 'on',
    destination: String(home.id),
  });
  const [after] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.like(
    after.calendars.find((calendar: { id: number }) => calendar.id === work.id),
    {
      checkForConflicts: true,
      isDestination: false,
    },
  );
  t.like(
    after.calendars.find((calendar: { id: number }) => calendar.id === home.id),
    {
      checkForConflicts: false,
      isDestination: true,
    },
  );
  t.is((await findUserById(world.knex(), user.id))!.onboardingStep, 'complete');
});

test('Continue posted without the calendar choice (only the action) keeps the defaults', async (t) => {
  const { user, browser, step } = await atCalendarStep();
  const connected = await connectCalDavInStep(browser, step);
  const [before] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  await browser.submit(connected, '/calendar', { action: 'continue' });
  const [after] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.deepEqual(after.calendars, before.calendars);
});

test('a forged choice of a read-only calendar as the destination is a 400 on the step, never a 500', async (t) => {
  const { user, browser, step } = await atCalendarStep();
  const connected = await connectCalDavInStep(browser, step);
  const [connection] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  const work = connection.calendars.find((calendar: { name: string }) => calendar.name === 'Work');
  await world.knex()('connected_calendars').where({ id: work.id }).update({ read_only: true });
  const refused = asPage(
    await browser.submit(connected, '/calendar', { action: 'continue', destination: String(work.id) }),
  );
  t.is(refused.status, 400);
  t.true(text(refused.html).includes('A read-only calendar cannot be the destination'));
  t.is((await findUserById(world.knex(), user.id))!.onboardingStep, 'calendar', 'the step is not done');
});

test("a CalDAV connection that needs reconnecting: not shown as connected; Reconnect reopens the step's form with its server URL and username, and a new password makes it active", async (t) => {
  const { user, browser, step } = await atCalendarStep();
  // As typed (with its path): discovery may need more than the origin the connection keeps.
  const serverUrl = `${radicale.url}/`;
  const connected = await connectCalDavInStep(browser, step, serverUrl);
  t.is(reconnectLink(connected), null, 'an active connection has no Reconnect');
  t.regex(listedConnection(connected, 'CalDAV: alex') ?? '', /class="check-mark"/, 'active: the check mark');
  const [before] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  await setConnectionStatus(world.knex(), before.id, 'needs_reauth');

  const refreshed = asPage(await browser.open(connected.url));
  const item = listedConnection(refreshed, 'CalDAV: alex');
  t.truthy(item, 'still listed');
  t.false(item!.includes('check-mark'), 'no check mark: it is not connected');
  t.false(item!.includes('✓'));
  t.true(text(item!).includes('Needs reconnecting'), 'its state, as on the settings page');
  const link = reconnectLink(refreshed);
  t.truthy(link, 'the step offers Reconnect');
  t.false(link!.newWindow, 'CalDAV reconnects inside the dialog');
  const target = new URL(link!.href, refreshed.url);
  t.is(target.pathname, connected.url.pathname, 'the step itself, not the settings page');
  t.is(target.hash, '#caldav');
  t.false(link!.href.includes(radicale.url), 'the link does not carry the server URL');

  const form = asPage(await browser.open(target));
  t.is(form.status, 200);
  t.regex(form.html, /<details class="caldav" id="caldav" open>/, 'the CalDAV form is open');
  t.true(
    form.html.includes(
      `name="serverUrl" type="url" inputmode="url" autocomplete="url" required placeholder="https://cloud.example.com" value="${serverUrl}"`,
    ),
    'with the server URL filled in, as typed',
  );
  t.regex(form.html, /<input id="username" name="username"[^>]* value="alex"/, 'and the username');
  t.regex(
    form.html,
    /<input id="password" name="password" type="password"[^>]*required>/,
    'never the password',
  );
  t.false(form.html.includes(alex.password));
  const back = asPage(
    await browser.submit(form, '/calendar/caldav', {
      serverUrl,
      username: alex.username,
      password: alex.password,
    }),
  );
  t.is(back.url.pathname, connected.url.pathname, 'back on the step');
  t.true(text(back.html).includes('Connect your calendar'));
  t.false(text(back.html).includes('Needs reconnecting'));
  t.is(reconnectLink(back), null);
  const after = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.is(after.length, 1, 'the same connection, not a second one');
  t.like(after[0], { id: before.id, provider: 'caldav', account: 'alex', status: 'active' });

  // The server URL is the user's own: another user's step given this connection's id fills in nothing.
  const stranger = await atCalendarStep();
  const foreign = asPage(await stranger.browser.open(`${stranger.step.url.pathname}?reconnect=${before.id}`));
  t.is(foreign.status, 200);
  t.regex(foreign.html, /<input id="serverUrl" name="serverUrl"[^>]* value=""/);
  t.regex(foreign.html, /<input id="username" name="username"[^>]* value=""/);
  t.false(foreign.html.includes(radicale.url));
});

test("a Google connection that needs reconnecting: Reconnect opens the provider's window from the step, which ends there and not in settings", async (t) => {
  const { user, browser, step } = await atCalendarStep();
  t.true(text((await throughGoogleWindow(googleLink(step))).html).includes('Google Calendar connected'));
  const [before] = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  await setConnectionStatus(world.knex(), before.id, 'needs_reauth');

  const refreshed = asPage(await browser.open(step.url));
  const item = listedConnection(refreshed, 'Google Calendar: ada@example.com');
  t.truthy(item, 'still listed');
  t.false(item!.includes('check-mark'), 'no check mark: it is not connected');
  t.true(text(item!).includes('Needs reconnecting'));
  const link = reconnectLink(refreshed);
  t.truthy(link, 'the step offers Reconnect');
  t.true(link!.newWindow, 'Google refuses frames: a new window, as Connect');
  const done = await throughGoogleWindow(googleLink(refreshed, 'Reconnect'));
  t.is(done.status, 200);
  t.is(done.url.pathname, '/auth/calendars/oauth/google/callback', "the window's own page, not settings");
  t.true(text(done.html).includes('Google Calendar connected'));
  t.true(text(done.html).includes('return to the set-up'));

  const after = (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.is(after.length, 1, 'the same connection, not a second one');
  t.like(after[0], { id: before.id, provider: 'google', status: 'active' });
  const back = asPage(await browser.open(step.url));
  t.false(text(back.html).includes('Needs reconnecting'));
  t.is(reconnectLink(back), null);
});
