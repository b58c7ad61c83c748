import { setConnectionStatus } from '@sched/db/queries/calendar-connections';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { setUpRadicale } from '../support/radicale.ts';
import { setUpWorld } from '../support/world.ts';
import { page, rawPost, signedIn, text } from './helpers.ts';

// The settings Calendars page over HTTP: every form needs its CSRF token, a connection of
// another user is 404 (never changed), bad input is a 4xx on the page (never 500), and an
// address the outbound rule refuses is said so without a request to it.

const CALENDARS = '/auth/settings/calendars';
const alex = { username: 'alex', password: 'correct horse battery staple' };
const radicale = setUpRadicale(test, [alex]);
const world = setUpWorld(test, { env: { OUTBOUND_PRIVATE_NETWORKS: 'allow' } });
const knex = () => world.knex();

test.before(async () => {
  await radicale.makeCalendar(alex, 'work', 'Work');
});

const listOf = async (apiKey: string) =>
  (await world.call('GET', '/v2/calendars', { token: apiKey })).body.data as Array<{
    id: number;
    calendars: Array<{ id: number; checkForConflicts: boolean }>;
  }>;

async function connected() {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const list = page(await browser.open(CALENDARS));
  const done = page(
    await browser.submit(list, `${CALENDARS}/caldav`, {
      serverUrl: radicale.url,
      username: alex.username,
      password: alex.password,
    }),
  );
  const [connection] = await listOf(user.apiKey);
  return { user, browser, page: done, connection: connection! };
}

test('every calendar form refuses a POST without its CSRF token (403), changing nothing', async (t) => {
  const { user, browser, connection } = await connected();
  const calendarId = connection.calendars[0]!.id;
  for (const [path, fields] of [
    [`${CALENDARS}/caldav`, { serverUrl: radicale.url, username: alex.username, password: alex.password }],
    [`${CALENDARS}/${connection.id}`, { [`conflicts.${calendarId}`]: '' }],
    [`${CALENDARS}/${connection.id}/disconnect`, {}],
    [`${CALENDARS}/connect/google`, {}],
  ] as const) {
    const answer = await rawPost(browser, path, fields);
    t.is(answer.status, 403, path);
  }
  const [after] = await listOf(user.apiKey);
  t.is(after?.calendars[0]?.checkForConflicts, true, 'still checked');
  t.is((await listOf(user.apiKey)).length, 1, 'still one connection');
});

test("another user's connection is 404 on the page and stays as it was", async (t) => {
  const owner = await connected();
  const other = await insertUser(knex());
  const browser = await signedIn(world, other);
  const list = page(await browser.open(CALENDARS));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const select = await rawPost(browser, `${CALENDARS}/${owner.connection.id}`, { _csrf: csrf });
  t.is(select.status, 404);
  const remove = await rawPost(browser, `${CALENDARS}/${owner.connection.id}/disconnect`, { _csrf: csrf });
  t.is(remove.status, 404);
  t.is((await listOf(owner.user.apiKey)).length, 1);
  t.is((await listOf(owner.user.apiKey))[0]?.calendars[0]?.checkForConflicts, true);
});

test('bad input is a 4xx with a message on the page, never a 500', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const list = page(await browser.open(CALENDARS));
  for (const fields of [
    { serverUrl: 'not a url', username: 'a', password: 'b' },
    { serverUrl: radicale.url, username: '', password: 'b' },
    { serverUrl: 'ftp://example.com/', username: 'a', password: 'b' },
  ]) {
    const answer = page(await browser.submit(list, `${CALENDARS}/caldav`, fields));
    t.true(answer.status >= 400 && answer.status < 500, `${answer.status} for ${fields.serverUrl}`);
    t.regex(answer.html, /role="alert"/);
  }
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  t.is((await rawPost(browser, `${CALENDARS}/not-a-number`, { _csrf: csrf })).status, 404);
  t.is((await rawPost(browser, `${CALENDARS}/99999999/disconnect`, { _csrf: csrf })).status, 404);
  t.deepEqual(await listOf(user.apiKey), []);
});

test('the page never shows the password, and the account page links to it', async (t) => {
  const { browser, page: shown } = await connected();
  t.true(text(shown.html).includes('CalDAV: alex'));
  t.false(shown.html.includes(alex.password));
  t.regex(
    page(await browser.open('/auth/settings')).html,
    /href="\/auth\/settings\/calendars">Manage calendars/,
  );
});

test('a forged choice of a read-only calendar as the destination is a 400 on the page, never a 500', async (t) => {
  const { user, browser, page: shown, connection } = await connected();
  const calendarId = connection.calendars[0]!.id;
  await knex()('connected_calendars').where({ id: calendarId }).update({ read_only: true });
  const [before] = await listOf(user.apiKey);
  const refused = page(
    await browser.submit(shown, `${CALENDARS}/${connection.id}`, { destination: String(calendarId) }),
  );
  t.is(refused.status, 400);
  t.true(text(refused.html).includes('A read-only calendar cannot be the destination'));
  const [after] = await listOf(user.apiKey);
  t.deepEqual(after, before, 'nothing changed');
});

test('Reconnect of a CalDAV connection fills in its server URL and username (never the password), for its owner only', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  // As typed (with its path): discovery may need more than the origin the connection keeps.
  const serverUrl = `${radicale.url}/`;
  const list = page(await browser.open(CALENDARS));
  page(
    await browser.submit(list, `${CALENDARS}/caldav`, {
      serverUrl,
      username: alex.username,
      password: alex.password,
    }),
  );
  const [connection] = await listOf(user.apiKey);
  await setConnectionStatus(knex(), connection!.id, 'needs_reauth');
  const shown = page(await browser.open(CALENDARS));
  const href = /<a [^>]*href="([^"]*)"[^>]*>Reconnect<\/a>/.exec(shown.html)?.[1];
  t.truthy(href, 'the page offers Reconnect');
  t.false(href!.includes(radicale.url), 'the link does not carry the server URL');
  const fieldValue = (html: string, name: string) =>
    new RegExp(`<input id="${name}" name="${name}"[^>]* value="([^"]*)"`).exec(html)?.[1];

  const form = page(await browser.open(href!));
  t.is(form.status, 200);
  t.is(fieldValue(form.html, 'serverUrl'), serverUrl, 'the server URL as typed');
  t.is(fieldValue(form.html, 'username'), alex.username);
  t.regex(
    form.html,
    /<input id="password" name="password" type="password"[^>]*required>/,
    'never the password',
  );
  t.false(form.html.includes(alex.password));

  // Credentials that no longer open (ENCRYPTION_KEY changed): the server's origin the connection keeps.
  await knex()('calendar_connections')
    .where({ id: connection!.id })
    .update({ credentials_sealed: 'unreadable' });
  const unreadable = page(await browser.open(href!));
  t.is(fieldValue(unreadable.html, 'serverUrl'), radicale.url);
  t.is(fieldValue(unreadable.html, 'username'), alex.username);

  const stranger = await signedIn(world, await insertUser(knex()));
  const foreign = page(await stranger.open(href!));
  t.is(foreign.status, 200);
  t.is(fieldValue(foreign.html, 'serverUrl'), '', "another user's link fills in nothing");
  t.is(fieldValue(foreign.html, 'username'), '');
  t.false(foreign.html.includes(radicale.url));
});
