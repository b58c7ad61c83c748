import test from 'ava';
import { startTestSystem } from '../support/system.ts';
import { setUpWorld } from '../support/world.ts';

/** The landing page at `/`: sign-in, sign-up, settings and the API's documentation. */

const world = setUpWorld(test);

test('GET / is a page linking sign-in, sign-up, settings and the docs, with the endpoints', async (t) => {
  const response = await fetch(`${world.system.url}/`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /text\/html/);
  const page = await response.text();
  for (const link of [
    '/auth/settings/sign-in',
    '/auth/settings/sign-up',
    '/auth/settings',
    '/v2/docs',
    '/v2/openapi.json',
  ]) {
    t.true(page.includes(`href="${link}"`) || page.includes(`${link}"`), link);
  }
  t.regex(page, />Sign in</);
  t.regex(page, />Create account</);
  t.true(page.includes(`${world.system.url}/.well-known/oauth-authorization-server`));
});

test('without public sign-up the landing page offers no Create account', async (t) => {
  const system = await startTestSystem({ SIGNUP_ENABLED: 'false' });
  t.teardown(() => system.close());
  const page = await (await fetch(`${system.url}/`)).text();
  t.notRegex(page, /Create account/);
  t.regex(page, />Sign in</);
});
