import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { page, signedIn, text } from '../settings/helpers.ts';

// Every CalDAV connection attempt makes the server contact the address given, so attempts are
// rate-limited per user (`caldav-connections`), with one allowance for the API and the pages:
// without it, anyone with an account could use the server to probe ports of any public host.

const world = setUpWorld(test, { env: { RATE_LIMITS: 'caldav-connections=2/1h' } });
const CALENDARS = '/auth/settings/calendars';
// A special-use address: refused (400) without a request, and still an attempt.
const attempt = { serverUrl: 'https://127.0.0.1:8443/', username: 'alex', password: 'secret' };

test('the third attempt in the window is 429, through the API and then on the settings page', async (t) => {
  const user = await insertUser(world.knex());
  const post = () => world.call('POST', '/v2/calendars/caldav', { token: user.apiKey, body: attempt });
  const first = await post();
  t.is(first.status, 400);
  t.is(first.headers.get('ratelimit-remaining'), '1');
  t.is((await post()).status, 400);
  const refused = await post();
  t.is(refused.status, 429);
  t.truthy(refused.headers.get('retry-after'));
  t.regex(String(refused.body.error?.message), /Too many CalDAV connection attempts/);

  // The page counts under the same key: no attempt left there either.
  const browser = await signedIn(world, user);
  const list = page(await browser.open(CALENDARS));
  const form = page(await browser.submit(list, `${CALENDARS}/caldav`, attempt));
  t.is(form.status, 429);
  t.true(text(form.html).includes('Too many CalDAV connection attempts'));
});

test('another user has an allowance of their own', async (t) => {
  const user = await insertUser(world.knex());
  const answer = await world.call('POST', '/v2/calendars/caldav', { token: user.apiKey, body: attempt });
  t.is(answer.status, 400);
});
