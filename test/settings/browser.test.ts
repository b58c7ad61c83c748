import test from 'ava';
import * as oidc from 'openid-client';
import { openPage, screenshotsIn, setUpChromium, signInAt } from '../support/browser.ts';
import { startRedirectReceiver } from '../support/oauth.ts';
import { insertUser } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { ADMIN, CLIENTS } from './helpers.ts';

// Real Chromium through the settings pages: sign in, create a client, see its secret once, generate
// a second, a third is refused, revoke one; an administrator approves it; then openid-client runs
// the authorization-code flow with that client and the secret that is left.
// Screenshots (outside git), light and dark: $TMPDIR/sched-settings-screens/.

const TOO_MANY = 'Maximum of 2 secrets allowed. Delete an existing secret first.';

const world = setUpWorld(test);
const chromium = setUpChromium(test);
const screenshots = screenshotsIn('sched-settings-screens');
let receiver: Awaited<ReturnType<typeof startRedirectReceiver>>;

test.before(async () => {
  receiver = await startRedirectReceiver();
});
test.after.always(async () => {
  await receiver?.close();
});

test('settings pages end to end: create, secret once, rotate, admin approval, then the openid-client flow', async (t) => {
  const owner = await insertUser(world.knex(), { name: 'Olivia Owner' });
  const admin = await insertUser(world.knex(), { serviceAdmin: true, name: 'Adam Admin' });
  const { context, page } = await openPage(chromium(), { width: 1100, height: 900 });
  t.teardown(() => context.close());

  // Sign in: the pages send a signed-out browser to the sign-in form and back.
  await signInAt(page, `${world.system.url}${CLIENTS}`, owner);
  await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();

  // Create.
  await page.getByRole('link', { name: 'New client' }).click();
  await page.getByLabel('Application name').fill('Booking Buddy');
  await page.getByLabel('Redirect URIs').fill(receiver.redirectUri);
  await page.getByLabel('Read your profile and booking limits').check();
  await page.getByLabel('Read your bookings', { exact: false }).first().check();
  await page.getByLabel('Website').fill('https://booking-buddy.example.com');
  await page.getByLabel('Purpose').fill('Shows your upcoming bookings on your phone.');
  await page.getByRole('button', { name: 'Create client' }).click();

  // The secret, once, with a working copy button and a warning.
  await page.getByRole('heading', { name: 'Your new client secret' }).waitFor();
  t.true(await page.getByText('it will not be shown again').isVisible());
  const firstSecret = await page.locator('#new-secret').inputValue();
  t.regex(firstSecret, /^\S{20,}$/);
  const copy = page.getByRole('button', { name: 'Copy' });
  t.true(await copy.isVisible(), 'the copy script shows its button');
  await screenshots(page, 'create-result');
  const clientId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

  await page.reload();
  await page.getByText('shown once and cannot be shown again').waitFor();
  t.is(await page.locator('#new-secret').count(), 0);
  t.false((await page.content()).includes(firstSecret));

  // A second secret; a third is refused.
  await page.getByRole('button', { name: 'Generate new secret' }).click();
  await page.getByRole('heading', { name: 'Your new client secret' }).waitFor();
  const secondSecret = await page.locator('#new-secret').inputValue();
  t.not(secondSecret, firstSecret);
  await page.getByRole('button', { name: 'Generate new secret' }).click();
  await page.getByText(TOO_MANY).waitFor();
  t.is(await page.locator('#new-secret').count(), 0);

  // Revoke the first (the oldest row).
  const firstHint = `****${firstSecret.slice(-4)}`;
  await page.getByRole('button', { name: `Revoke secret ${firstHint}` }).click();
  await page.getByText('Secret revoked').waitFor();
  t.is(await page.getByRole('button', { name: /^Revoke secret/ }).count(), 1);
  t.true(await page.getByText('Waiting for review').isVisible());

  // Sign out; the administrator signs in and approves.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await signInAt(page, `${world.system.url}${ADMIN}`, admin);
  await page.getByRole('heading', { name: 'Client review' }).waitFor();
  t.true(await page.getByRole('heading', { name: 'Booking Buddy' }).isVisible());
  await screenshots(page, 'admin-review');
  const card = page.locator('li.review-card', { has: page.getByText(clientId) });
  await card.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Client approved.').waitFor();

  // openid-client with the client made through the pages and the secret that is left.
  const config = await oidc.discovery(
    new URL(world.system.url),
    clientId,
    undefined,
    oidc.ClientSecretPost(secondSecret),
    { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: receiver.redirectUri,
    scope: 'PROFILE_READ BOOKING_READ',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  // The administrator's settings sign-in is the authorization server's session: straight to consent.
  await page.goto(url.href);
  await page.getByRole('heading', { name: 'Booking Buddy wants to access your account' }).waitFor();
  await page.getByRole('button', { name: 'Allow' }).click();
  const callback = await receiver.next();
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  t.truthy(tokens.access_token);
  t.is(tokens.scope, 'PROFILE_READ BOOKING_READ');

  // The revoked first secret no longer authenticates the client.
  const stale = await oidc.discovery(
    new URL(world.system.url),
    clientId,
    undefined,
    oidc.ClientSecretPost(firstSecret),
    {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    },
  );
  await t.throwsAsync(oidc.refreshTokenGrant(stale, tokens.refresh_token!));
});

test('a page that never answers an evaluate fails the test at the deadline instead of hanging it', async (t) => {
  const { context, page } = await openPage(chromium(), { width: 400, height: 300 }, { deadlineMs: 200 });
  t.teardown(() => context.close());
  await t.throwsAsync(() => page.evaluate(() => new Promise<never>(() => {})), {
    message: 'page.evaluate did not answer within 200 ms',
  });
  // That answers pass through is what every other page of openPage shows; a second evaluate here,
  // under the 200 ms deadline, would fail on a loaded machine.
});
