import test from 'ava';
import { chromiumAvailable, launchBrowser, type TestBrowser } from '../support/browser.ts';
import { authorizeUrl, pkcePair, startRedirectReceiver } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertClient } from '../support/factories.ts';

// Real Chromium (playwright-core) through the pages: sign in, consent, Allow lands on the redirect
// URI with code and state; Deny comes back with access_denied. The redirect URI is a tiny local server.

const { system, user } = setUpWorld(test);
let browser: TestBrowser;
let receiver: Awaited<ReturnType<typeof startRedirectReceiver>>;

test.before(async () => {
  if (!chromiumAvailable()) throw new Error('Chromium is missing: apt-get install -y chromium');
  receiver = await startRedirectReceiver();
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await receiver?.close();
});

test.serial(
  'sign in, see the consent page, Allow: back at the redirect URI with code and state',
  async (t) => {
    const client = await insertClient(system.stores.db.knex, {
      name: 'Booking Buddy',
      websiteUrl: 'https://booking-buddy.example.com',
      scopes: ['PROFILE_READ', 'BOOKING_READ'],
      redirectUris: [receiver.redirectUri],
    });
    const page = await browser.context.newPage();
    await page.goto(
      authorizeUrl(system.url, {
        client_id: client.client.id,
        redirect_uri: receiver.redirectUri,
        scope: 'PROFILE_READ BOOKING_READ',
        state: 'state-allow',
        code_challenge: pkcePair().challenge,
      }).href,
    );

    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Booking Buddy wants to access your account' }).waitFor();
    t.true(await page.getByText('Read your profile and booking limits').isVisible());
    t.true(await page.getByText('Read your bookings').isVisible());
    t.true(await page.getByRole('link', { name: 'booking-buddy.example.com' }).isVisible());
    t.true(await page.getByRole('button', { name: 'Deny' }).isVisible());

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.pathname === '/callback');
    const landed = new URL(page.url());
    t.is(`${landed.origin}${landed.pathname}`, receiver.redirectUri);
    t.truthy(landed.searchParams.get('code'));
    t.is(landed.searchParams.get('state'), 'state-allow');
    t.is(landed.searchParams.get('iss'), system.config.appUrl);
    const received = await receiver.next();
    t.is(received.searchParams.get('code'), landed.searchParams.get('code'));
    await page.close();
  },
);

test.serial('Deny: back at the redirect URI with error=access_denied and the state', async (t) => {
  const client = await insertClient(system.stores.db.knex, {
    name: 'Nosy App',
    scopes: ['PROFILE_READ'],
    redirectUris: [receiver.redirectUri],
  });
  const page = await browser.context.newPage();
  await page.goto(
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: receiver.redirectUri,
      scope: 'PROFILE_READ',
      state: 'state-deny',
    }).href,
  );
  // Signed in by the previous test (same browser session): straight to consent.
  await page.getByRole('heading', { name: 'Nosy App wants to access your account' }).waitFor();
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.waitForURL((url) => url.pathname === '/callback');
  const landed = new URL(page.url());
  t.is(landed.searchParams.get('error'), 'access_denied');
  t.is(landed.searchParams.get('state'), 'state-deny');
  t.is(landed.searchParams.get('code'), null);
  await page.close();
});

test.serial('Create account link leads to the sign-up form with its labels', async (t) => {
  const client = await insertClient(system.stores.db.knex, { redirectUris: [receiver.redirectUri] });
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  await page.goto(
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: receiver.redirectUri,
      scope: 'PROFILE_READ',
    }).href,
  );
  await page.getByRole('link', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Create account' }).waitFor();
  for (const label of ['Name', 'Email', 'Username', 'Password']) {
    t.true(await page.getByLabel(label, { exact: true }).isVisible(), label);
  }
  t.true(await page.getByRole('button', { name: 'Create account' }).isVisible());
  await page.close();
});
