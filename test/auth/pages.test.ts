import { createOrganization } from '@sched/db/queries/organizations';
import { findUserByEmail } from '@sched/db/queries/users';
import test from 'ava';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, formOf, type PageResult } from '../support/oauth.ts';
import { decodeQuotedPrintable, waitForMail } from '../support/mail.ts';
import { setUpWorld } from '../support/world.ts';
import { insertUser } from '../support/factories.ts';

// The browser pages over plain HTTP: labels, CSRF, cookies, headers, remembered consent, and
// sign-up with the verification e-mail delivered to a real local SMTP server.

const {
  system,
  smtp,
  user,
  clients: { app },
} = setUpWorld(test, {
  clients: {
    app: {
      name: 'Acme Calendar',
      logo: 'https://acme.example.com/logo.png',
      websiteUrl: 'https://acme.example.com/about',
      scopes: ['PROFILE_READ', 'BOOKING_READ', 'TEAM_MEMBERSHIP_WRITE'],
    },
  },
});

test.before(async () => {
  // ORG_/TEAM_ scopes need an organization role to be granted (insufficient-permissions.test.ts).
  await createOrganization(system.stores.db.knex, system.stores.tokenStore, {
    name: 'Acme',
    slug: `acme-${Date.now()}`,
    ownerUserId: user.user.id,
  });
});

const start = (scope = 'PROFILE_READ', client = app) =>
  authorizeUrl(system.url, {
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    scope,
    state: 'st',
  });

async function signInPage(
  browser = new FlowBrowser(system.url),
  scope?: string,
): Promise<[FlowBrowser, PageResult]> {
  const page = await browser.open(start(scope));
  if (page.kind !== 'page') throw new Error('expected the sign-in page');
  return [browser, page];
}

function cookieAttributes(response: Response, name: string): string {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  if (!line) throw new Error(`no ${name} cookie in ${response.headers.getSetCookie().join(' | ')}`);
  return line.toLowerCase();
}

test('sign-in page: labelled Email and Password, a Sign in button and a Create account link', async (t) => {
  const [, page] = await signInPage();
  t.is(page.status, 200);
  t.regex(page.html, /<label for="email">Email<\/label>\s*<input id="email" name="email" type="email"/);
  t.regex(
    page.html,
    /<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/,
  );
  t.regex(page.html, /<button type="submit" class="primary block">Sign in<\/button>/);
  t.regex(page.html, /<a href="\/auth\/interaction\/[^"]+\/signup">Create account<\/a>/);
  t.regex(page.html, /to continue to <strong>Acme Calendar<\/strong>/);
  t.truthy(formOf(page.html, '/signin')?.hidden._csrf, 'the form carries a CSRF token');
});

test('pages are not cacheable, not frameable and send no referrer', async (t) => {
  const browser = new FlowBrowser(system.url);
  const redirect = await browser.request(start());
  const response = await browser.request(redirect.headers.get('location')!);
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.regex(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.regex(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  t.is(response.headers.get('x-frame-options'), 'DENY');
  t.is(response.headers.get('referrer-policy'), 'no-referrer');
  t.regex(response.headers.get('content-type') ?? '', /^text\/html/);
});

test('cookies are HttpOnly and SameSite (interaction, CSRF and session)', async (t) => {
  const browser = new FlowBrowser(system.url);
  const redirect = await browser.request(start());
  t.regex(cookieAttributes(redirect, 'auth.interaction'), /httponly/);
  t.regex(cookieAttributes(redirect, 'auth.interaction'), /samesite=lax/);
  const pageResponse = await browser.request(redirect.headers.get('location')!);
  t.regex(cookieAttributes(pageResponse, 'auth.csrf'), /httponly/);
  t.regex(cookieAttributes(pageResponse, 'auth.csrf'), /samesite=lax/);
  const html = await pageResponse.text();
  const form = formOf(html, '/signin')!;
  const signedIn = await browser.request(new URL(form.action, system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, email: user.email, password: user.password }),
  });
  t.is(signedIn.status, 303);
  const resumed = await browser.request(signedIn.headers.get('location')!);
  t.regex(cookieAttributes(resumed, 'auth.session'), /httponly/);
  t.regex(cookieAttributes(resumed, 'auth.session'), /samesite=lax/);
  t.notRegex(cookieAttributes(resumed, 'auth.session'), /secure/, 'not Secure on an http APP_URL');
});

test('a form posted without its CSRF token is refused (403)', async (t) => {
  const [browser, page] = await signInPage();
  const form = formOf(page.html, '/signin')!;
  const response = await browser.request(new URL(form.action, system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: user.email, password: user.password }),
  });
  t.is(response.status, 403);
  t.regex(await response.text(), /This form has expired/);
});

test('a CSRF token of another interaction is refused (403)', async (t) => {
  const [browser, first] = await signInPage();
  const [, second] = await signInPage(browser);
  const token = formOf(first.html, '/signin')!.hidden._csrf!;
  const form = formOf(second.html, '/signin')!;
  const response = await browser.request(new URL(form.action, system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, email: user.email, password: user.password }),
  });
  t.is(response.status, 403);
});

test('a wrong password shows the form again with a message (401), keeping the e-mail', async (t) => {
  const [browser, page] = await signInPage();
  const result = await browser.submit(page, '/signin', { email: user.email, password: 'wrong password' });
  t.is(result.kind, 'page');
  if (result.kind !== 'page') return;
  t.is(result.status, 401);
  t.regex(result.html, /role="alert"[^>]*>Incorrect email or password\./);
  t.true(result.html.includes(`value="${user.email}"`));
});

test('consent page: client name, logo and website, each scope in plain words, Allow and Deny', async (t) => {
  const [browser, page] = await signInPage(undefined, 'PROFILE_READ TEAM_MEMBERSHIP_WRITE');
  const consent = await browser.submit(page, '/signin', { email: user.email, password: user.password });
  t.is(consent.kind, 'page');
  if (consent.kind !== 'page') return;
  t.regex(consent.html, /<h1>Acme Calendar wants to access your account<\/h1>/);
  t.regex(
    consent.html,
    /<img class="client-logo" src="https:\/\/acme.example.com\/logo.png" alt="Acme Calendar logo"/,
  );
  t.regex(
    consent.html,
    /<a class="client-site" href="https:\/\/acme.example.com\/about"[^>]*>acme.example.com<\/a>/,
  );
  t.regex(consent.html, /Read your profile and booking limits/);
  t.regex(consent.html, /Add, change and remove your teams&#39; members/);
  t.notRegex(consent.html, /Read your bookings/, 'only the requested scopes');
  t.regex(consent.html, /Signed in as <strong>[^<]+<\/strong>/);
  t.regex(
    consent.html,
    /<button type="submit" name="decision" value="deny" class="secondary">Deny<\/button>/,
  );
  t.regex(
    consent.html,
    /<button type="submit" name="decision" value="allow" class="primary">Allow<\/button>/,
  );
  t.truthy(formOf(consent.html, '/consent')?.hidden._csrf);
});

test('consent is remembered per user, client and scope set', async (t) => {
  const other = await insertUser(system.stores.db.knex);
  const first = await authorizeInBrowser(system.url, start('PROFILE_READ'), { user: other });
  t.true(first.consentShown);
  t.is(first.outcome.kind, 'redirect');

  const same = await authorizeInBrowser(system.url, start('PROFILE_READ'), { browser: first.browser });
  t.false(same.consentShown, 'same scopes: no second prompt');
  t.truthy(same.outcome.kind === 'redirect' && same.outcome.url.searchParams.get('code'));

  const subset = await authorizeInBrowser(system.url, start('PROFILE_READ'), { user: other });
  t.false(subset.consentShown, 'remembered across browsers (new sign-in, no prompt)');

  const wider = await authorizeInBrowser(system.url, start('PROFILE_READ BOOKING_READ'), {
    browser: first.browser,
  });
  t.true(wider.consentShown, 'a new scope asks again');
});

test('an unknown or finished interaction shows an expiry page', async (t) => {
  const response = await fetch(`${system.url}/auth/interaction/not-a-real-uid`);
  t.is(response.status, 400);
  t.regex(await response.text(), /expired or was already completed/);
});

test('the stylesheet is served as CSS', async (t) => {
  const response = await fetch(`${system.url}/auth/assets/app.css`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/css/);
  t.regex(await response.text(), /prefers-color-scheme: dark/);
});

// --- sign-up -----------------------------------------------------------------------------------

test('sign-up: Create account creates the user, mails a verification link over SMTP, and continues to consent', async (t) => {
  const [browser, page] = await signInPage();
  const signUp = await browser.open(new URL(page.html.match(/href="([^"]+\/signup)"/)![1]!, system.url));
  t.is(signUp.kind, 'page');
  if (signUp.kind !== 'page') return;
  for (const label of ['Name', 'Email', 'Username', 'Password']) {
    t.regex(signUp.html, new RegExp(`<label for="${label.toLowerCase()}">${label}</label>`));
  }
  t.regex(signUp.html, /<button type="submit" class="primary block">Create account<\/button>/);

  const email = `new-${Date.now()}@example.com`;
  const consent = await browser.submit(signUp, '/signup', {
    name: 'Ada Lovelace',
    email,
    username: `ada${Date.now()}`,
    password: 'correct horse battery',
  });
  t.is(consent.kind, 'page');
  if (consent.kind !== 'page') return;
  t.regex(consent.html, /Acme Calendar wants to access your account/);

  const created = await findUserByEmail(system.stores.db.knex, email);
  t.truthy(created);
  t.is(created!.name, 'Ada Lovelace');
  t.is(created!.emailVerifiedAt, null);

  const mail = await waitForMail(smtp, email);
  t.regex(mail.raw, /Subject: Verify your email address/);
  const link = decodeQuotedPrintable(mail.raw).match(
    /https?:\/\/[^\s"<]+\/auth\/verify-email\?token=[A-Za-z0-9_-]+/,
  )?.[0];
  t.truthy(link, mail.raw);

  const verified = await fetch(link!);
  t.is(verified.status, 200);
  t.regex(await verified.text(), /Email verified/);
  t.truthy((await findUserByEmail(system.stores.db.knex, email))!.emailVerifiedAt);
  t.is((await fetch(link!)).status, 400, 'the link works once');

  const allowed = await browser.submit(consent, '/consent', { decision: 'allow' });
  t.is(allowed.kind, 'redirect');
});

test('sign-up validation: each field explains what is wrong (400), a taken e-mail says so (409)', async (t) => {
  const [browser, page] = await signInPage();
  const signUp = await browser.open(new URL(page.html.match(/href="([^"]+\/signup)"/)![1]!, system.url));
  if (signUp.kind !== 'page') return t.fail();
  const invalid = await browser.submit(signUp, '/signup', {
    name: '',
    email: 'nope',
    username: '-',
    password: 'short',
  });
  if (invalid.kind !== 'page') return t.fail();
  t.is(invalid.status, 400);
  t.regex(invalid.html, /id="name-error">Enter your name/);
  t.regex(invalid.html, /id="email-error">Enter a valid email address/);
  t.regex(invalid.html, /id="username-error">/);
  t.regex(invalid.html, /id="password-error">Use at least 8 characters/);
  t.regex(invalid.html, /aria-invalid="true"/);

  const taken = await browser.submit(invalid, '/signup', {
    name: 'Someone',
    email: user.email.toUpperCase(),
    username: `someone${Date.now()}`,
    password: 'long enough password',
  });
  if (taken.kind !== 'page') return t.fail();
  t.is(taken.status, 409);
  t.regex(taken.html, /An account with this email already exists/);
});

test('an invalid verification link is refused', async (t) => {
  const response = await fetch(`${system.url}/auth/verify-email?token=${'x'.repeat(43)}`);
  t.is(response.status, 400);
  t.regex(await response.text(), /invalid, expired or already used/);
});
