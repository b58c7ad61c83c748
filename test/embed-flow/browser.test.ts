/**
 * The onboarding embed end to end in real Chromium, against the real system (auth + API on one
 * origin, Postgres, Redis, a local SMTP server): the example third-party site
 * (examples/third-party/server.ts) embeds the built component on another site (localhost), the
 * authorization server runs on 127.0.0.1. Real cross-site iframe with partitioned cookies, real
 * postMessage, real popup. The site's POST /exchange is intercepted so the test itself exchanges
 * the code with the page's PKCE verifier. Screenshots of every step in both themes go to
 * test-results/embed-flow/ (ignored by git).
 * Needs Chromium (CHROMIUM_PATH or /usr/bin/chromium) and the component's build (npm run build).
 */
import { mkdirSync } from 'node:fs';
import { setConnectionStatus } from '@sched/db/queries/calendar-connections';
import { createUser, findUserByEmail } from '@sched/db/queries/users';
import test from 'ava';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { type RunningExample, startExample } from '../../examples/third-party/server.ts';
import {
  clickClosingItsPage,
  launchChromium,
  type OpenPage,
  openPage,
  pressRemovingItsFrame,
} from '../support/browser.ts';
import { tokenRequest } from '../support/oauth.ts';
import { waitForMail } from '../support/mail.ts';
import { setUpWorld } from '../support/world.ts';
import { createEmbedClient, EMBED_PATH, embedUrl } from './helpers.ts';
import { insertUser, type TestClient } from '../support/factories.ts';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.ts';

const SHOTS = new URL('../../test-results/embed-flow/', import.meta.url);
const SCOPE = ['PROFILE_READ', 'EVENT_TYPE_READ'];
const FRAME_TITLE = 'Sign in to Scheduling and authorize access';

// Google's endpoints point at a fake Google on loopback, so the calendar step can connect it.
let google: FakeGoogle;
const { system, smtp } = setUpWorld(test, {
  env: async () => {
    google = await startFakeGoogle();
    return google.env;
  },
});
let site: RunningExample;
let otherSite: RunningExample;
let client: TestClient;
let browser: Browser;
let seq = 0;

test.before(async () => {
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  const siteOptions = {
    port: 0,
    bind: 'localhost',
    schedHost: system.url,
    apiBase: system.url,
    clientId: '',
    clientSecret: undefined,
    scope: SCOPE,
  };
  // The client id is only known once the site's origin (its redirect URI) is: the page takes it
  // from its settings form, as a developer would type it.
  site = await startExample(siteOptions);
  otherSite = await startExample(siteOptions);
  client = await createEmbedClient(system.stores.db.knex, site.url, { scopes: SCOPE });
});

test.after.always(async () => {
  await google?.close();
  await browser?.close();
  await site?.close();
  await otherSite?.close();
});

interface Session extends OpenPage {
  /** What the site received: the code and verifier its POST /exchange carried. */
  exchanges: Array<{ code: string; codeVerifier: string }>;
}

/** A fresh browser profile on the example site, set up for `client` and `theme`. */
async function openSite(
  options: {
    theme?: 'light' | 'dark';
    email?: string;
    at?: RunningExample;
    clientId?: string;
    /** false: the site's own back end exchanges the code (examples/third-party/server.ts). */
    intercept?: boolean;
  } = {},
): Promise<Session> {
  const { context, page, problems } = await openPage(browser, { width: 1200, height: 900 });
  const exchanges: Session['exchanges'] = [];
  // Every message the page receives, whoever sent it (to prove what was and was not posted).
  await page.addInitScript(() => {
    const w = window as unknown as { received: Array<{ origin: string; data: unknown }> };
    w.received = [];
    window.addEventListener('message', (event) =>
      w.received.push({ origin: event.origin, data: event.data }),
    );
  });
  if (options.intercept !== false) {
    await page.route('**/exchange', async (route) => {
      exchanges.push(JSON.parse(route.request().postData() ?? '{}') as Session['exchanges'][number]);
      await route.fulfill({ json: { ok: true, note: 'exchanged by the test' } });
    });
  }
  await page.goto(`${(options.at ?? site).url}/`);
  await page.getByRole('textbox', { name: 'OAuth client id' }).fill(options.clientId ?? client.client.id);
  await page.getByRole('combobox', { name: 'Theme' }).selectOption(options.theme ?? 'light');
  if (options.email)
    await page.getByRole('textbox', { name: 'Prefill e-mail (optional)' }).fill(options.email);
  return { context, page, problems, exchanges };
}

const section = (page: Page, name: string) => page.getByRole('region', { name });
const frameOf = (page: Page): FrameLocator => page.frameLocator(`iframe[title="${FRAME_TITLE}"]`);
const received = (page: Page) =>
  page.evaluate(() => (window as unknown as { received: Array<{ origin: string; data: unknown }> }).received);

async function openDialog(page: Page) {
  await section(page, 'Callback mode').getByRole('button', { name: 'Continue with Scheduling' }).click();
  const dialog = page.getByRole('dialog', { name: 'Continue with Scheduling' });
  await dialog.waitFor();
  return dialog;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname });
}

const unique = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

async function signUpInFrame(frame: FrameLocator, who: string, email: string): Promise<void> {
  await frame.getByRole('heading', { name: 'Create account' }).waitFor();
  await frame.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
  if ((await frame.getByLabel('Email').inputValue()) !== email) await frame.getByLabel('Email').fill(email);
  await frame.getByLabel('Username', { exact: true }).fill(`ada-${who}`);
  await frame.getByLabel('Password').fill('correct horse battery');
  await frame.getByRole('button', { name: 'Create account' }).click();
}

async function fillProfile(frame: FrameLocator, who: string): Promise<void> {
  await frame.getByRole('heading', { name: 'Set up your profile' }).waitFor();
  await frame.getByLabel('Username', { exact: true }).fill(`ada-${who}`);
  await frame.getByLabel('Time zone').selectOption('Europe/London');
  await frame.getByLabel('Week starts on').selectOption('Sunday');
  await frame.getByRole('button', { name: 'Continue' }).click();
}

/** From the flow's first page (in the frame or the popup): "Sign in", then signs in as `who`. */
async function signIn(target: FrameLocator | Page, who: { email: string; password: string }): Promise<void> {
  await target.getByRole('link', { name: 'Sign in' }).click();
  await target.getByLabel('Email').fill(who.email);
  await target.getByLabel('Password').fill(who.password);
  await target.getByRole('button', { name: 'Sign in' }).click();
}

async function exchange(code: string, verifier: string) {
  return tokenRequest(system.url, {
    client_id: client.client.id,
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
  });
}

test.serial(
  'new user: sign-up, profile, calendar, Allow in the dialog; the code exchanged with PKCE works on /v2/me',
  async (t) => {
    const who = unique();
    const email = `ada-${who}@example.com`;
    const { context, page, problems, exchanges } = await openSite({ theme: 'dark', email });
    try {
      const dialog = await openDialog(page);
      const frame = frameOf(page);
      await frame.getByRole('heading', { name: 'Create account' }).waitFor();
      await page.getByRole('status').waitFor({ state: 'detached' }); // onboarding:ready arrived
      t.is(await frame.getByLabel('Email').inputValue(), email, 'prefilled from user.email');
      await shot(page, 'dark-1-sign-up');
      await signUpInFrame(frame, who, email);

      await frame.getByRole('heading', { name: 'Set up your profile' }).waitFor();
      await shot(page, 'dark-2-profile');
      await fillProfile(frame, who);
      await frame.getByRole('heading', { name: 'Connect your calendar' }).waitFor();
      await shot(page, 'dark-3-calendar');
      // Google refuses frames: the step opens it in a new window, which names the account, goes
      // on when asked, and ends on "connected".
      const [window] = await Promise.all([
        context.waitForEvent('page'),
        frame.getByRole('link', { name: 'Connect Google Calendar' }).click(),
      ]);
      await window.getByText(`the scheduling account ${email}`).waitFor();
      await window.getByRole('button', { name: 'Continue to Google Calendar' }).click();
      await window.getByRole('heading', { name: 'Google Calendar connected' }).waitFor();
      await window.close();
      await frame.getByRole('link', { name: 'Refresh' }).click();
      await frame.getByText('Google Calendar: ada@example.com').waitFor();
      await shot(page, 'dark-3-calendar-connected');
      await frame.getByRole('button', { name: 'Continue' }).click();

      await frame.getByRole('heading', { name: 'Acme Bookings wants to access your account' }).waitFor();
      await shot(page, 'dark-4-consent');
      await frame.getByRole('button', { name: 'Allow' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('callback-log').filter({ hasText: 'onAuthorizationAllowed: code' }).waitFor();
      t.is(exchanges.length, 1);

      const tokens = await exchange(exchanges[0]!.code, exchanges[0]!.codeVerifier);
      t.is(tokens.status, 200, JSON.stringify(tokens.body));
      t.is(tokens.body.scope, SCOPE.join(' '));
      const me = await fetch(new URL('/v2/me', system.url), {
        headers: { authorization: `Bearer ${String(tokens.body.access_token)}` },
      });
      t.is(me.status, 200);
      t.is(((await me.json()) as { data: { email: string } }).data.email, email);

      const user = (await findUserByEmail(system.stores.db.knex, email))!;
      t.is(user.onboardingStep, 'complete');
      t.is(user.calendarProvider, 'google');
      t.is(user.timeZone, 'Europe/London');
      const mail = await waitForMail(smtp, email, (m) => /Verify your email address/.test(m.raw));
      t.regex(mail.raw, /\/auth\/verify-email\?token=/);

      // Every message from the server came to this page's origin with the request's state.
      const fromServer = (await received(page)).filter((m) => m.origin === system.url);
      t.deepEqual(
        [...new Set(fromServer.map((m) => (m.data as { type: string }).type))],
        ['onboarding:ready', 'authorization:allowed'],
      );
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'returning user with finished onboarding: sign in, straight to consent; Deny calls onAuthorizationDenied',
  async (t) => {
    const returning = await insertUser(system.stores.db.knex);
    const { context, page, problems, exchanges } = await openSite({ theme: 'light' });
    try {
      const dialog = await openDialog(page);
      const frame = frameOf(page);
      await frame.getByRole('link', { name: 'Sign in' }).click();
      await frame.getByRole('heading', { name: 'Sign in' }).waitFor();
      await shot(page, 'light-1-sign-in');
      await frame.getByLabel('Email').fill(returning.email);
      await frame.getByLabel('Password').fill(returning.password);
      await frame.getByRole('button', { name: 'Sign in' }).click();
      await frame.getByRole('heading', { name: 'Acme Bookings wants to access your account' }).waitFor();
      t.false(await frame.getByText('Set up your profile').isVisible());
      await shot(page, 'light-4-consent');
      await frame.getByRole('button', { name: 'Deny' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('callback-log').filter({ hasText: 'onAuthorizationDenied' }).waitFor();
      t.deepEqual(exchanges, []);
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'a user who stopped after the profile resumes at the calendar step (session kept in the frame)',
  async (t) => {
    const who = unique();
    const email = `stop-${who}@example.com`;
    const { context, page, problems } = await openSite({ theme: 'light', email });
    try {
      let dialog = await openDialog(page);
      const frame = frameOf(page);
      await signUpInFrame(frame, who, email);
      await frame.getByRole('heading', { name: 'Set up your profile' }).waitFor();
      await shot(page, 'light-2-profile');
      await fillProfile(frame, who);
      await frame.getByRole('heading', { name: 'Connect your calendar' }).waitFor();
      await shot(page, 'light-3-calendar');
      // The user leaves: Cancel inside the frame closes the dialog (onboarding:close -> onClose).
      await frame.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('callback-log').filter({ hasText: 'onClose' }).waitFor();
      t.is((await findUserByEmail(system.stores.db.knex, email))!.onboardingStep, 'calendar');

      // Later, same browser: no sign-in (the partitioned session cookie), straight to the calendar step.
      dialog = await openDialog(page);
      await frame.getByRole('heading', { name: 'Connect your calendar' }).waitFor();
      t.false(await frame.getByRole('heading', { name: 'Create account' }).isVisible());
      await frame.getByRole('button', { name: 'Skip for now' }).click();
      await frame.getByRole('heading', { name: 'Acme Bookings wants to access your account' }).waitFor();
      // Escape inside the frame closes the dialog too (the page cannot see keys typed in the frame).
      await frame.getByRole('button', { name: 'Allow' }).focus();
      await pressRemovingItsFrame(page, 'Escape', dialog);
      const user = (await findUserByEmail(system.stores.db.knex, email))!;
      t.is(user.onboardingStep, 'complete');
      t.is(user.calendarProvider, null, 'skipped');
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'a user left at the calendar step by an earlier visit resumes there after signing in',
  async (t) => {
    const email = `half-${unique()}@example.com`;
    const password = 'correct horse battery';
    await createUser(system.stores.db.knex, {
      email,
      password,
      name: 'Half Way',
      onboardingStep: 'calendar',
    });
    const { context, page } = await openSite();
    try {
      await openDialog(page);
      const frame = frameOf(page);
      await signIn(frame, { email, password });
      await frame.getByRole('heading', { name: 'Connect your calendar' }).waitFor();
      t.pass();
    } finally {
      await context.close();
    }
  },
);

test.serial(
  "a Google calendar that needs reconnecting: Reconnect in the step opens the provider's window, and Refresh shows it active",
  async (t) => {
    const email = `reauth-${unique()}@example.com`;
    const password = 'correct horse battery';
    const user = await createUser(system.stores.db.knex, {
      email,
      password,
      name: 'Re Connect',
      onboardingStep: 'calendar',
    });
    const { context, page, problems } = await openSite({ theme: 'dark' });
    /** The step's link `name` opens the Google window; confirmed there, it ends on "connected" and is closed. */
    const throughGoogle = async (frame: FrameLocator, name: string) => {
      const [window] = await Promise.all([
        context.waitForEvent('page'),
        frame.getByRole('link', { name, exact: true }).click(),
      ]);
      await window.getByRole('button', { name: 'Continue to Google Calendar' }).click();
      await window.getByRole('heading', { name: 'Google Calendar connected' }).waitFor();
      await window.close();
      await frame.getByRole('link', { name: 'Refresh' }).click();
    };
    try {
      await openDialog(page);
      const frame = frameOf(page);
      await signIn(frame, { email, password });
      await frame.getByRole('heading', { name: 'Connect your calendar' }).waitFor();
      await throughGoogle(frame, 'Connect Google Calendar');
      await frame.getByText('Google Calendar: ada@example.com').waitFor();
      const connection = await system.stores.db
        .knex('calendar_connections')
        .where({ user_id: user.id })
        .first('id');
      await setConnectionStatus(system.stores.db.knex, connection.id, 'needs_reauth');

      await frame.getByRole('link', { name: 'Refresh' }).click();
      await frame.getByText('Needs reconnecting', { exact: true }).waitFor();
      await shot(page, 'dark-3-calendar-needs-reauth');
      await throughGoogle(frame, 'Reconnect');
      await frame.getByText('Google Calendar: ada@example.com').waitFor();
      t.is(await frame.getByText('Needs reconnecting', { exact: true }).count(), 0);
      t.is(await frame.getByRole('link', { name: 'Reconnect' }).count(), 0);
      const after = await system.stores.db.knex('calendar_connections').where({ user_id: user.id });
      t.is(after.length, 1, 'the same connection, not a second one');
      t.like(after[0], { id: connection.id, status: 'active' });
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'the example site in redirect mode against the real server: Allow, callback page, its own exchange and /v2/me',
  async (t) => {
    const returning = await insertUser(system.stores.db.knex);
    const { context, page, problems } = await openSite({ intercept: false });
    try {
      await section(page, 'Redirect mode').getByRole('button', { name: 'Continue with Scheduling' }).click();
      const frame = frameOf(page);
      await signIn(frame, returning);
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/callback'),
        frame.getByRole('button', { name: 'Allow' }).click(),
      ]);
      const landed = new URL(page.url());
      t.is(landed.searchParams.get('iss'), system.config.appUrl);
      await page.getByRole('heading', { name: 'Connected' }).waitFor();
      t.true(((await page.getByTestId('callback-result').textContent()) ?? '').includes(returning.email));
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial('a page on an unregistered origin cannot frame the flow and receives no message', async (t) => {
  const { context, page } = await openSite({ at: otherSite });
  try {
    const dialog = await openDialog(page);
    // The frame is refused (frame-ancestors): no onboarding:ready, so after its 5 s the component
    // reports UNKNOWN and offers the popup.
    await dialog.getByRole('button', { name: 'Continue in a new window' }).waitFor({ timeout: 20_000 });
    await page.getByTestId('callback-log').filter({ hasText: 'onError UNKNOWN' }).waitFor();
    const frame = page
      .frames()
      .find((f) => f.url().includes(EMBED_PATH) || f.url().startsWith('chrome-error:'));
    if (frame) t.is(await frame.locator('h1').count(), 0, 'nothing of the flow rendered in the frame');
    t.deepEqual(
      (await received(page)).filter((m) => m.origin === system.url),
      [],
      'not a single message from the server',
    );
  } finally {
    await context.close();
  }
});

test.serial(
  'a page on another origin that opens the popup itself receives nothing (exact target origin)',
  async (t) => {
    const returning = await insertUser(system.stores.db.knex);
    const { context, page } = await openSite({ at: otherSite });
    try {
      // The attacker page opens the flow in a popup, claiming the registered site as parent_origin.
      const url = embedUrl(system.url, {
        client,
        parentOrigin: site.url,
        challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        mode: 'popup',
      });
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        page.evaluate((href) => {
          window.open(href, 'sched-onboarding', 'popup=yes,width=500,height=720');
        }, url.href),
      ]);
      await signIn(popup, returning);
      await clickClosingItsPage(popup, popup.getByRole('button', { name: 'Allow' }));
      t.deepEqual(
        (await received(page)).filter((m) => m.origin === system.url),
        [],
        'postMessage to parent_origin drops the message for the opener on another origin',
      );
    } finally {
      await context.close();
    }
  },
);

test.serial('parent_origin not registered: the frame shows an error and posts nothing', async (t) => {
  const { context, page } = await openSite();
  try {
    // The registered site frames the flow itself, but claims another parent origin.
    const url = embedUrl(system.url, {
      client,
      parentOrigin: 'https://evil.example',
      challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    });
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.title = 'manual';
      frame.src = src;
      document.body.append(frame);
    }, url.href);
    const frame = page.frameLocator('iframe[title="manual"]');
    await frame.getByRole('heading', { name: 'This site cannot embed Scheduling' }).waitFor();
    await frame.getByText('parent_origin is not the origin').waitFor();
    t.deepEqual(
      (await received(page)).filter((m) => m.origin === system.url),
      [],
    );
  } finally {
    await context.close();
  }
});

test.serial('an unknown scope is shown in the frame and reported as AUTHORIZATION_FAILED', async (t) => {
  const { context, page } = await openSite();
  try {
    await page.getByRole('textbox', { name: 'Scopes (space separated)' }).fill('PROFILE_READ NOT_A_SCOPE');
    const dialog = await openDialog(page);
    await frameOf(page).getByText('Requested scope is not a recognized scope').waitFor();
    await page.getByTestId('callback-log').filter({ hasText: 'onError AUTHORIZATION_FAILED' }).waitFor();
    t.true(await dialog.isVisible(), 'the dialog stays');
  } finally {
    await context.close();
  }
});

test.serial(
  'cookies refused in the frame: needs-popup, the popup runs the flow first-party and posts to the opener',
  async (t) => {
    const returning = await insertUser(system.stores.db.knex);
    const { context, page, problems, exchanges } = await openSite({ theme: 'dark' });
    try {
      // A browser that refuses the frame its cookies: the entry's test cookie never arrives.
      await page.route(`${system.url}${EMBED_PATH}?**`, async (route) => {
        if (new URL(route.request().url()).searchParams.get('mode') === 'popup') return route.continue();
        const response = await route.fetch({ maxRedirects: 0 });
        const headers = { ...response.headers() };
        delete headers['set-cookie'];
        await route.fulfill({ response, headers });
      });
      const dialog = await openDialog(page);
      const button = dialog.getByRole('button', { name: 'Continue in a new window' });
      await button.waitFor();
      await shot(page, 'dark-0-needs-popup');
      const [popup] = await Promise.all([context.waitForEvent('page'), button.click()]);
      await popup.waitForLoadState();
      t.is(new URL(popup.url()).origin, system.url);
      await signIn(popup, returning);
      await popup.getByRole('heading', { name: 'Acme Bookings wants to access your account' }).waitFor();
      t.is(await popup.locator('html').getAttribute('data-theme'), 'dark');
      await clickClosingItsPage(popup, popup.getByRole('button', { name: 'Allow' }));
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('callback-log').filter({ hasText: 'onAuthorizationAllowed: code' }).waitFor();
      const tokens = await exchange(exchanges[0]!.code, exchanges[0]!.codeVerifier);
      t.is(tokens.status, 200, JSON.stringify(tokens.body));
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial('theme: light and dark frames declare the matching color-scheme and paint in it', async (t) => {
  for (const theme of ['light', 'dark'] as const) {
    const { context, page } = await openSite({ theme });
    try {
      await openDialog(page);
      const frame = frameOf(page);
      await frame.getByRole('heading', { name: 'Create account' }).waitFor();
      await page.getByRole('status').waitFor({ state: 'detached' });
      const scheme = await frame.locator('html').evaluate((el) => getComputedStyle(el).colorScheme);
      t.is(scheme, theme);
      const background = await frame.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
      t.is(background, theme === 'dark' ? 'rgb(23, 26, 33)' : 'rgb(255, 255, 255)');
      await shot(page, `${theme}-dialog`);
    } finally {
      await context.close();
    }
  }
});
