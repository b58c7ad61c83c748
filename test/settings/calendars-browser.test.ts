import { setConnectionStatus, setLastSyncError } from '@sched/db/queries/calendar-connections';
import test from 'ava';
import { openPage, type Page, screenshotsIn, setUpChromium, signInAt } from '../support/browser.ts';
import { insertUser, type TestUser } from '../support/factories.ts';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.ts';
import { setUpRadicale } from '../support/radicale.ts';
import { setUpWorld } from '../support/world.ts';

// The settings Calendars page in real Chromium: connect CalDAV against a real radicale (a wrong
// password, then the right one), choose the calendars checked for conflicts and the destination,
// disconnect; connect Google through a fake Google on loopback and Reconnect it once it needs
// reauthorization. Results checked through GET /v2/calendars. Screenshots (outside git), light and
// dark: $TMPDIR/sched-calendar-screens/.

const alex = { username: 'alex', password: 'correct horse battery staple' };
const radicale = setUpRadicale(test, [alex]);
let google: FakeGoogle;
const world = setUpWorld(test, {
  env: async () => {
    google = await startFakeGoogle();
    return google.env; // includes OUTBOUND_PRIVATE_NETWORKS=allow: radicale and the fake are on loopback
  },
});
test.after.always(async () => {
  await google?.close();
});
const chromium = setUpChromium(test);
const screenshots = screenshotsIn('sched-calendar-screens');
const knex = () => world.knex();
const CALENDARS = '/auth/settings/calendars';

test.before(async () => {
  await radicale.makeCalendar(alex, 'work', 'Work');
  await radicale.makeCalendar(alex, 'home', 'Home');
});

const signIn = (page: Page, user: TestUser) =>
  signInAt(page, new URL(CALENDARS, world.system.url).href, user);
const connections = async (user: TestUser) =>
  (await world.call('GET', '/v2/calendars', { token: user.apiKey })).body.data as Array<{
    id: number;
    provider: string;
    account: string;
    status: string;
    calendars: Array<{ name: string; checkForConflicts: boolean; isDestination: boolean }>;
  }>;

test.serial(
  'CalDAV: a wrong password is refused, the right one connects; choose calendars and the destination; disconnect',
  async (t) => {
    const user = await insertUser(knex());
    const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 900 });
    try {
      await signIn(page, user);
      await page.getByRole('heading', { name: 'Calendars', exact: true }).waitFor();
      await page.getByLabel('Server URL').fill(radicale.url);
      await page.getByLabel('Username').fill(alex.username);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Connect CalDAV calendar' }).click();
      await page.getByText('The calendar server refused these credentials').waitFor();
      await screenshots(page, 'caldav-refused');
      t.deepEqual(await connections(user), [], 'nothing saved');
      t.is(await page.getByLabel('Server URL').inputValue(), radicale.url, 'the form keeps what was typed');
      t.is(await page.getByLabel('Password').inputValue(), '', 'but never the password');

      await page.getByLabel('Password').fill(alex.password);
      await page.getByRole('button', { name: 'Connect CalDAV calendar' }).click();
      await page.getByText('Calendar connected.').waitFor();
      await page.getByRole('heading', { name: 'CalDAV: alex' }).waitFor();
      t.false((await page.content()).includes(alex.password), 'no password on the page');

      await page.getByLabel('Check Home for conflicts').uncheck();
      await page.getByLabel('Add new bookings to Work').check();
      await screenshots(page, 'caldav-connected');
      await page.getByRole('button', { name: 'Save calendars' }).click();
      await page.getByText('Calendars saved.').waitFor();
      const [saved] = await connections(user);
      t.like(saved, { provider: 'caldav', account: 'alex', status: 'active' });
      const byName = Object.fromEntries(saved!.calendars.map((calendar) => [calendar.name, calendar]));
      t.like(byName.Work, { checkForConflicts: true, isDestination: true });
      t.like(byName.Home, { checkForConflicts: false, isDestination: false });
      t.true(await page.getByLabel('Add new bookings to Work').isChecked(), 'the page shows the choice');

      // A failed write shows until a later one succeeds.
      await setLastSyncError(knex(), saved!.id, 'The calendar server answered 507');
      await page.reload();
      await page.getByText('The calendar server answered 507').waitFor();

      await page.getByRole('button', { name: 'Disconnect' }).click();
      await page.getByText('Calendar disconnected.').waitFor();
      t.deepEqual(await connections(user), []);
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'Google: connect through the provider and back; needs_reauth offers Reconnect, which makes it active again',
  async (t) => {
    const user = await insertUser(knex());
    const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 900 });
    try {
      await signIn(page, user);
      await page.getByRole('button', { name: 'Connect Google Calendar' }).click();
      await page.getByText('Google Calendar connected.').waitFor();
      await page.getByRole('heading', { name: 'Google Calendar: ada@example.com' }).waitFor();
      t.is(new URL(page.url()).pathname, CALENDARS);
      const [connection] = await connections(user);
      t.like(connection, { provider: 'google', status: 'active' });

      await setConnectionStatus(knex(), connection!.id, 'needs_reauth');
      await page.reload();
      await page.getByText('Needs reconnecting').waitFor();
      await screenshots(page, 'google-needs-reauth');
      await page.getByRole('button', { name: 'Reconnect' }).click();
      await page.getByText('Google Calendar connected.').waitFor();
      const after = await connections(user);
      t.is(after.length, 1, 'the same connection, not a second one');
      t.like(after[0], { provider: 'google', status: 'active' });
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);
