import test from 'ava';
import { clientCredentials, FlowBrowser, type PageResult } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertClient, insertUser } from '../support/factories.ts';

// Rate limits (counted in the token store): the token endpoint per client, failed sign-ins per
// account and per IP address; 429 with Retry-After. Serial: the IP lock comes last.

const { system, user } = setUpWorld(test);

async function signInPage(browser: FlowBrowser): Promise<PageResult> {
  const client = await insertClient(system.stores.db.knex);
  const page = await browser.open(
    `/auth/oauth2/authorize?client_id=${client.client.id}&redirect_uri=${encodeURIComponent(client.redirectUri)}&scope=PROFILE_READ`,
  );
  if (page.kind !== 'page') throw new Error('expected the sign-in page');
  return page;
}

test.serial(
  'token endpoint: over 1200 requests a minute for one client get 429 with Retry-After',
  async (t) => {
    const client = await insertClient(system.stores.db.knex);
    const otherClient = await insertClient(system.stores.db.knex);
    // Authenticated requests (a refresh token that does not exist): only those are counted.
    const credentials = (clientId: string) =>
      clientCredentials(clientId === client.client.id ? client : otherClient);
    const send = (clientId: string) =>
      fetch(`${system.url}/v2/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...credentials(clientId),
          grant_type: 'refresh_token',
          refresh_token: 'x',
        }),
      });
    const statuses: number[] = [];
    for (let batch = 0; batch < 24; batch++) {
      const responses = await Promise.all(Array.from({ length: 50 }, () => send(client.client.id)));
      for (const response of responses) {
        statuses.push(response.status);
        await response.arrayBuffer();
      }
    }
    t.true(
      statuses.every((status) => status === 400),
      'the first 1200 are answered normally',
    );
    const limited = await send(client.client.id);
    t.is(limited.status, 429);
    t.true(Number(limited.headers.get('retry-after')) >= 1);
    const body = (await limited.json()) as { error: string; error_description: string };
    t.is(body.error, 'too_many_requests');
    t.regex(body.error_description, /Too many token requests/);
    t.is(limited.headers.get('cache-control'), 'no-store');

    t.is((await send(otherClient.client.id)).status, 400, 'other clients are not affected');
  },
);

test.serial(
  'sign-in: 10 failures lock the account (429, Retry-After), even for the right password',
  async (t) => {
    const browser = new FlowBrowser(system.url);
    const page = await signInPage(browser);
    for (let i = 0; i < 10; i++) {
      const failed = await browser.submit(page, '/signin', { email: user.email, password: `wrong ${i}` });
      t.is(failed.status, 401);
    }
    const response = await browser.request(
      new URL(/action="([^"]+\/signin)"/.exec(page.html)![1]!, system.url),
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          _csrf: /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!,
          email: user.email.toUpperCase(),
          password: user.password,
        }),
      },
    );
    t.is(response.status, 429);
    t.true(Number(response.headers.get('retry-after')) > 60);
    t.regex(await response.text(), /Too many failed sign-ins for this account/);

    const other = await insertUser(system.stores.db.knex);
    const fine = await browser.submit(page, '/signin', { email: other.email, password: other.password });
    t.not(fine.status, 429, 'another account is not locked');
  },
);

test.serial('sign-in: 50 failures from one IP address lock that address', async (t) => {
  const browser = new FlowBrowser(system.url);
  const page = await signInPage(browser);
  // The 10 failures of the previous test came from this address too.
  let failures = 10;
  for (; failures < 60; failures++) {
    const attempt = await browser.submit(page, '/signin', {
      email: `nobody-${failures}@example.com`,
      password: 'wrong',
    });
    if (attempt.status === 429) break;
    t.is(attempt.status, 401);
  }
  t.is(failures, 50, 'locked after the 50th failure');
  const fresh = await insertUser(system.stores.db.knex);
  const locked = await browser.submit(page, '/signin', { email: fresh.email, password: fresh.password });
  t.is(locked.status, 429);
  if (locked.kind === 'page') t.regex(locked.html, /Too many failed sign-ins from your network/);
});
