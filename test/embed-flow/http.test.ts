import { updateOAuthClient } from '@sched/db/queries/oauth-clients';
import { findUserByEmail, findUserById } from '@sched/db/queries/users';
import test from 'ava';
import {
  authorizeInBrowser,
  authorizeUrl,
  FlowBrowser,
  formOf,
  type PageResult,
  pkcePair,
  type RedirectResult,
  tokenRequest,
} from '../support/oauth.ts';
import { waitForMail } from '../support/mail.ts';
import { setUpWorld } from '../support/world.ts';
import {
  bodyData,
  createEmbedClient,
  EMBED_PATH,
  type EmbedRequest,
  embedUrl,
  pageMessage,
  postForm,
} from './helpers.ts';
import { insertUser, type TestClient } from '../support/factories.ts';

// The onboarding embed over plain HTTP (no browser): the header rules (frame-ancestors per client,
// no X-Frame-Options or COOP on embed pages, framing still denied elsewhere), the cookies of the
// frame, CSRF, validation answers, and the whole flow down to a code exchanged with PKCE.

const PARENT = 'http://127.0.0.1:4555';
const OTHER_ORIGIN = 'http://127.0.0.1:4556';

const { system, smtp } = setUpWorld(test);
let client: TestClient;
let seq = 0;

test.before(async () => {
  client = await createEmbedClient(system.stores.db.knex, PARENT, {
    redirectUris: [`${PARENT}/callback`, 'https://acme.example/oauth/done'],
  });
});

const unique = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;
const request = (extra: Partial<EmbedRequest> = {}): EmbedRequest => ({
  client,
  parentOrigin: PARENT,
  challenge: pkcePair().challenge,
  ...extra,
});

function asPage(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

/** The directives of a CSP header, by name. */
function csp(response: { headers: Headers }): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of (response.headers.get('content-security-policy') ?? '').split(';')) {
    const [name = '', ...value] = part.trim().split(/\s+/);
    if (name) map.set(name, value.join(' '));
  }
  return map;
}

const cookieLine = (response: Response, name: string) =>
  response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));

/** Opens the entry like the iframe does (cookie check included) and returns the first page. */
async function openEmbed(browser: FlowBrowser, extra: Partial<EmbedRequest> = {}) {
  return asPage(await browser.open(embedUrl(system.url, request(extra))));
}

/** An ordinary (not embed) authorization request of `client` for PROFILE_READ; `params` add or override. */
const ordinaryAuthorizeUrl = (params: Record<string, string> = {}) =>
  authorizeUrl(system.url, {
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    scope: 'PROFILE_READ',
    state: 's',
    code_challenge: pkcePair().challenge,
    ...params,
  });

/** GETs a URL with the browser's cookies, following nothing. */
const raw = (browser: FlowBrowser, url: string | URL) => browser.request(url);

async function signUp(browser: FlowBrowser, page: PageResult, who = unique()) {
  const email = `embed-${who}@example.com`;
  const next = asPage(
    await browser.submit(page, '/signup', {
      name: 'Ada Lovelace',
      email,
      username: `ada-${who}`,
      password: 'correct horse battery',
    }),
  );
  return { email, page: next };
}

test('entry, unknown client: error page that nobody may frame, no X-Frame-Options or COOP, nothing posted', async (t) => {
  const url = new URL(EMBED_PATH, system.url);
  url.search = new URLSearchParams({
    client_id: 'no-such-client',
    redirect_uri: `${PARENT}/callback`,
    scope: 'PROFILE_READ',
    state: 's',
    theme: 'dark',
    parent_origin: PARENT,
  }).toString();
  const response = await fetch(url, { redirect: 'manual' });
  const html = await response.text();
  t.is(response.status, 400);
  t.regex(html, /No application is registered with this client_id/);
  t.is(csp(response).get('frame-ancestors'), "'none'");
  t.is(response.headers.get('x-frame-options'), null);
  t.is(response.headers.get('cross-origin-opener-policy'), null);
  t.is(bodyData(html)['parent-origin'], undefined, 'no origin to post to');
  t.regex(html, /data-theme="dark"/);
});

test('entry: frame-ancestors names exactly the origins of the client redirect URIs, script from self only', async (t) => {
  const browser = new FlowBrowser(system.url);
  const page = await openEmbed(browser);
  const response = await raw(browser, page.url);
  const directives = csp(response);
  t.is(response.status, 200);
  t.is(directives.get('frame-ancestors'), `${PARENT} https://acme.example`);
  t.is(directives.get('script-src'), "'self'");
  t.is(directives.get('default-src'), "'none'");
  t.is(response.headers.get('x-frame-options'), null);
  t.is(response.headers.get('cross-origin-opener-policy'), null);
  const html = await response.text();
  t.notRegex(html, /<script>|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  t.is(bodyData(html)['parent-origin'], PARENT);
  const script = await fetch(new URL('/auth/embed/assets/embed.js', system.url));
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /^text\/javascript/);
  const code = await script.text();
  t.regex(code, /postMessage\(message, origin\)/);
  t.notRegex(code, /postMessage\([^)]*'\*'/, "never '*'");
});

test('a client with other origins: its pages name only its own origins', async (t) => {
  const other = await createEmbedClient(system.stores.db.knex, OTHER_ORIGIN);
  const browser = new FlowBrowser(system.url);
  const page = await openEmbed(browser, { client: other, parentOrigin: OTHER_ORIGIN });
  const response = await raw(browser, page.url);
  t.is(csp(response).get('frame-ancestors'), OTHER_ORIGIN);
});

test('ordinary pages keep framing denied, COOP and Lax cookies without Partitioned', async (t) => {
  const browser = new FlowBrowser(system.url);
  const url = ordinaryAuthorizeUrl();
  const first = await raw(browser, url);
  t.is(first.status, 303);
  const interaction = cookieLine(first, 'auth.interaction') ?? '';
  t.regex(interaction, /samesite=lax/i);
  t.notRegex(interaction, /partitioned/i);
  const page = await raw(browser, new URL(first.headers.get('location') ?? '', system.url));
  t.is(page.status, 200);
  t.is(page.headers.get('x-frame-options'), 'DENY');
  t.is(page.headers.get('cross-origin-opener-policy'), 'same-origin');
  t.is(csp(page).get('frame-ancestors'), "'none'");
  t.false(csp(page).has('script-src'), 'ordinary pages run no script');
  t.regex(cookieLine(page, 'auth.csrf') ?? '', /samesite=lax/i);
  t.notRegex(cookieLine(page, 'auth.csrf') ?? '', /partitioned/i);
  t.notRegex(await page.text(), /data-theme|embed\.js/);
});

test('frame cookies: the test cookie, interaction, resume and CSRF cookies are SameSite=None; Secure; Partitioned', async (t) => {
  const browser = new FlowBrowser(system.url);
  const entry = embedUrl(system.url, request());
  const first = await raw(browser, entry);
  t.is(first.status, 303);
  const check = new URL(first.headers.get('location') ?? '', system.url);
  t.is(check.pathname, EMBED_PATH);
  t.is(check.searchParams.get('embed_cookie_check'), '1');
  const attributes = /samesite=none.*secure.*partitioned|samesite=none.*partitioned.*secure/i;
  t.regex(cookieLine(first, 'auth.embed-check') ?? '', attributes);
  const second = await raw(browser, check);
  t.is(second.status, 303);
  t.regex(second.headers.get('location') ?? '', /^\/auth\/interaction\//);
  for (const name of ['auth.interaction', 'auth.interaction.sig', 'auth.resume', 'auth.resume.sig']) {
    t.regex(cookieLine(second, name) ?? '', attributes, name);
  }
  const page = await raw(browser, new URL(second.headers.get('location') ?? '', system.url));
  t.regex(cookieLine(page, 'auth.csrf') ?? '', attributes);
});

test('session cookie set in the frame after sign-up is partitioned too', async (t) => {
  const browser = new FlowBrowser(system.url);
  const page = await openEmbed(browser);
  const email = `embed-${unique()}@example.com`;
  const form = formOf(page.html, '/signup')!;
  const posted = await postForm(browser, new URL(form.action, system.url), {
    ...form.hidden,
    name: 'Ada',
    email,
    username: `u-${unique()}`,
    password: 'correct horse battery',
  });
  t.is(posted.status, 303);
  t.is(posted.headers.get('cross-origin-opener-policy'), null);
  const resume = await raw(browser, new URL(posted.headers.get('location') ?? '', system.url));
  t.is(resume.status, 303);
  t.is(resume.headers.get('cross-origin-opener-policy'), null, 'the popup keeps window.opener');
  t.regex(cookieLine(resume, 'auth.session') ?? '', /samesite=none.*secure.*partitioned/i);
});

test('cookies refused in the frame: the page asks for the popup (onboarding:needs-popup)', async (t) => {
  const entry = embedUrl(system.url, request({ extra: { embed_cookie_check: '1' } }));
  const response = await fetch(entry, { redirect: 'manual' });
  const html = await response.text();
  t.is(response.status, 200);
  t.deepEqual(pageMessage(html), { type: 'onboarding:needs-popup' });
  t.is(bodyData(html)['parent-origin'], PARENT);
  t.regex(html, /Continue in a new window/);
  t.is(csp(response).get('frame-ancestors'), `${PARENT} https://acme.example`);
});

test('popup mode is first-party: no cookie check, ordinary Lax cookies, still no COOP', async (t) => {
  const browser = new FlowBrowser(system.url);
  const first = await raw(browser, embedUrl(system.url, request({ mode: 'popup' })));
  t.is(first.status, 303);
  t.regex(first.headers.get('location') ?? '', /^\/auth\/interaction\//);
  t.regex(cookieLine(first, 'auth.interaction') ?? '', /samesite=lax/i);
  t.notRegex(cookieLine(first, 'auth.interaction') ?? '', /partitioned/i);
  t.is(first.headers.get('cross-origin-opener-policy'), null);
  const page = await raw(browser, new URL(first.headers.get('location') ?? '', system.url));
  t.is(page.headers.get('cross-origin-opener-policy'), null);
  t.is(bodyData(await page.text()).mode, 'popup');
});

test('parent_origin that is not a registered origin: error shown, nothing posted', async (t) => {
  for (const parentOrigin of [
    'https://evil.example',
    `${PARENT}/`,
    'null',
    'http://127.0.0.1:4555.evil.example',
  ]) {
    const response = await fetch(embedUrl(system.url, request({ parentOrigin })), { redirect: 'manual' });
    const html = await response.text();
    t.is(response.status, 400, parentOrigin);
    t.regex(html, /parent_origin is not the origin of one of the redirect addresses/);
    t.is(bodyData(html)['parent-origin'], undefined, 'no target origin: the script posts nothing');
    t.is(pageMessage(html), null);
  }
});

test('a loopback redirect URI on another port (accepted for redirects) does not widen who may frame or receive', async (t) => {
  const otherPort = 'http://127.0.0.1:4599';
  const response = await fetch(
    embedUrl(
      system.url,
      request({ client: { ...client, redirectUri: `${otherPort}/callback` }, parentOrigin: otherPort }),
    ),
    { redirect: 'manual' },
  );
  const html = await response.text();
  t.is(response.status, 400);
  t.regex(html, /parent_origin is not the origin of one of the redirect addresses/);
  t.is(csp(response).get('frame-ancestors'), `${PARENT} https://acme.example`);
  t.is(bodyData(html)['parent-origin'], undefined);
  t.is(pageMessage(html), null);
});

test('page errors of the authorization checks are shown in the frame, before parent_origin', async (t) => {
  const pending = await createEmbedClient(system.stores.db.knex, PARENT, { status: 'PENDING' });
  const cases: Array<[Partial<EmbedRequest>, RegExp]> = [
    [{ client: pending }, /waiting for review/],
    [
      { client: { ...client, redirectUri: `${PARENT}/elsewhere` } },
      /redirect_uri of this request is not one/,
    ],
    [
      { client: { ...client, redirectUri: `${PARENT}/elsewhere` }, parentOrigin: 'https://evil.example' },
      /redirect_uri/,
    ],
    [{ challenge: '' }, /code_challenge is required/],
    [{ scope: '' }, /scope parameter is required/],
  ];
  for (const [extra, message] of cases) {
    const response = await fetch(embedUrl(system.url, request(extra)), { redirect: 'manual' });
    const html = await response.text();
    t.is(response.status, 400, String(message));
    t.regex(html, message);
    t.is(response.headers.get('location'), null);
  }
});

test('invalid_scope cannot redirect a frame: shown and posted as AUTHORIZATION_FAILED', async (t) => {
  const response = await fetch(embedUrl(system.url, request({ scope: 'PROFILE_READ NOT_A_SCOPE' })), {
    redirect: 'manual',
  });
  const html = await response.text();
  t.is(response.status, 400);
  t.is(response.headers.get('location'), null);
  t.regex(html, /Requested scope is not a recognized scope/);
  t.deepEqual(pageMessage(html), {
    type: 'onboarding:error',
    code: 'AUTHORIZATION_FAILED',
    message: 'Requested scope is not a recognized scope',
  });
  t.is(bodyData(html)['parent-origin'], PARENT);
  const exceeding = await fetch(embedUrl(system.url, request({ scope: 'BOOKING_WRITE' })), {
    redirect: 'manual',
  });
  t.is(exceeding.status, 400);
  t.regex(await exceeding.text(), /exceeds the client&#39;s registered scopes/);
});

test('malformed embed parameters are 400 pages, never 500', async (t) => {
  const cases: Array<Record<string, string>> = [
    { theme: 'purple' },
    { mode: 'window' },
    { prefill_email: 'x'.repeat(300) },
  ];
  for (const extra of cases) {
    const url = embedUrl(system.url, request());
    for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
    const response = await fetch(url, { redirect: 'manual' });
    t.is(response.status, 400, JSON.stringify(extra));
    t.regex(await response.text(), /Invalid embed parameters/);
  }
  const repeated = embedUrl(system.url, request());
  repeated.searchParams.append('parent_origin', PARENT);
  t.is((await fetch(repeated, { redirect: 'manual' })).status, 400);
  const nul = new URL(`${embedUrl(system.url, request()).href}&prefill_name=%00`);
  t.is((await fetch(nul, { redirect: 'manual' })).status, 400);
});

test('response_mode=embed is not reachable through the ordinary authorization endpoint', async (t) => {
  const url = ordinaryAuthorizeUrl({ response_mode: 'embed', parent_origin: 'https://evil.example' });
  const response = await fetch(url, { redirect: 'manual' });
  t.is(response.status, 303);
  const location = new URL(response.headers.get('location') ?? '');
  t.is(location.searchParams.get('error'), 'invalid_request');
});

test('CSRF: a form without the token or with another flow token is refused (403, shown in the frame)', async (t) => {
  const browser = new FlowBrowser(system.url);
  const page = await openEmbed(browser);
  const form = formOf(page.html, '/signup')!;
  const post = (fields: Record<string, string>) =>
    postForm(browser, new URL(form.action, system.url), fields);
  const fields = {
    name: 'A',
    email: `c-${unique()}@example.com`,
    username: `c-${unique()}`,
    password: 'long enough pw',
  };
  const missing = await post(fields);
  t.is(missing.status, 403);
  const html = await missing.text();
  t.regex(html, /This form has expired/);
  t.is(csp(missing).get('frame-ancestors'), `${PARENT} https://acme.example`);
  t.deepEqual(pageMessage(html)?.code, 'SIGNUP_FAILED');
  const otherFlow = await openEmbed(browser);
  const wrong = await post({ ...fields, _csrf: formOf(otherFlow.html, '/signup')!.hidden._csrf! });
  t.is(wrong.status, 403);
  t.is(await findUserByEmail(system.stores.db.knex, fields.email), null, 'nobody was created');
});

test('whole flow: sign-up, e-mail, profile, calendar, consent, code exchanged with PKCE for tokens that work on /v2/me', async (t) => {
  const pkce = pkcePair();
  const browser = new FlowBrowser(system.url);
  const who = unique();
  const first = await openEmbed(browser, {
    challenge: pkce.challenge,
    state: 'state-123',
    theme: 'dark',
    prefill: { email: `embed-${who}@example.com`, name: 'Ada Prefilled' },
  });
  t.regex(first.html, new RegExp(`value="embed-${who}@example.com"`), 'prefilled e-mail');
  t.regex(first.html, /value="Ada Prefilled"/);
  t.regex(first.html, /data-theme="dark"/);
  t.regex(first.html, /<meta name="color-scheme" content="dark">/);

  const { email, page: profile } = await signUp(browser, first, who);
  t.regex(profile.html, /Set up your profile/);
  t.regex(profile.html, /data-theme="dark"/, 'the theme follows the flow');
  const mail = await waitForMail(smtp, email, (m) => /Verify your email address/.test(m.raw));
  t.regex(mail.raw, /\/auth\/verify-email\?token=/);

  const badZone = asPage(
    await browser.submit(profile, '/profile', {
      name: 'Ada Lovelace',
      username: `ada-${who}`,
      time_zone: 'Mars/Olympus_Mons',
      week_start: 'Sunday',
    }),
  );
  t.is(badZone.status, 400);
  t.regex(badZone.html, /Choose a time zone from the list/);
  t.is(pageMessage(badZone.html)?.code, 'ONBOARDING_FAILED');

  const calendar = asPage(
    await browser.submit(badZone, '/profile', {
      name: 'Ada Lovelace',
      username: `ada-${who}`,
      time_zone: 'europe/london',
      week_start: 'Sunday',
    }),
  );
  t.regex(calendar.html, /Connect your calendar/);
  const user = (await findUserByEmail(system.stores.db.knex, email))!;
  t.is(user.timeZone, 'Europe/London');
  t.is(user.weekStart, 'Sunday');
  t.is(user.onboardingStep, 'calendar');

  const noChoice = asPage(await browser.submit(calendar, '/calendar', { action: 'connect' }));
  t.is(noChoice.status, 400);
  t.is(pageMessage(noChoice.html)?.code, 'ONBOARDING_FAILED');
  const consent = asPage(await browser.submit(noChoice, '/calendar', { action: 'skip' }));
  t.regex(consent.html, /Acme Bookings wants to access your account/);
  const done = (await findUserById(system.stores.db.knex, user.id))!;
  t.is(done.calendarProvider, null);
  t.is(done.onboardingStep, 'complete');

  const result = asPage(await browser.submit(consent, '/consent', { decision: 'allow' }));
  t.is(result.status, 200);
  const message = pageMessage(result.html)!;
  t.is(message.type, 'authorization:allowed');
  t.is(message.state, 'state-123');
  t.is(message.iss, system.config.appUrl);
  t.is(bodyData(result.html)['parent-origin'], PARENT);

  const tokens = await tokenRequest(system.url, {
    client_id: client.client.id,
    grant_type: 'authorization_code',
    code: String(message.code),
    redirect_uri: client.redirectUri,
    code_verifier: pkce.verifier,
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));
  const me = await fetch(new URL('/v2/me', system.url), {
    headers: { authorization: `Bearer ${String(tokens.body.access_token)}` },
  });
  t.is(me.status, 200);
  t.is(((await me.json()) as { data: { email: string } }).data.email, email);
});

test('profile validation: taken username is 409, empty fields 400, never 500; steps cannot be skipped', async (t) => {
  const taken = await insertUser(system.stores.db.knex, { username: `taken-${unique()}` });
  const browser = new FlowBrowser(system.url);
  const { page: profile } = await signUp(browser, await openEmbed(browser));
  const early = asPage(await browser.submit(profile, '/calendar', { action: 'skip' }).catch(() => profile));
  t.regex(early.html, /Set up your profile/, 'no calendar form on the profile page');
  const calendarForm = await browser.request(
    new URL(formOf(profile.html, '/profile')!.action.replace(/profile$/, 'calendar'), system.url),
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: formOf(profile.html, '/profile')!.hidden._csrf!, action: 'skip' }),
    },
  );
  t.is(calendarForm.status, 303, 'calendar before profile goes back to the step');
  const still = asPage(await browser.open(new URL(calendarForm.headers.get('location') ?? '', system.url)));
  t.regex(still.html, /Set up your profile/);

  const consentEarly = await browser.request(
    new URL(formOf(profile.html, '/profile')!.action.replace(/profile$/, 'consent'), system.url),
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: formOf(profile.html, '/profile')!.hidden._csrf!,
        decision: 'allow',
      }),
    },
  );
  t.is(consentEarly.status, 303);
  t.regex(
    consentEarly.headers.get('location') ?? '',
    /^\/auth\/interaction\/[^/]+$/,
    'Allow before onboarding is refused',
  );

  const conflict = asPage(
    await browser.submit(still, '/profile', {
      name: 'Ada',
      username: taken.user.username!,
      time_zone: 'UTC',
      week_start: 'Monday',
    }),
  );
  t.is(conflict.status, 409);
  t.regex(conflict.html, /This username is taken/);
  const empty = asPage(await browser.submit(conflict, '/profile', {}));
  t.is(empty.status, 400);
  for (const text of ['Enter your name', 'Use 2 to 40 letters', 'Choose a time zone', 'Choose the day']) {
    t.true(empty.html.includes(text), text);
  }
  const weird = asPage(
    await browser.submit(empty, '/profile', {
      name: 'A\u0007',
      username: 'Ab',
      time_zone: '+02:00',
      week_start: 'Someday',
    }),
  );
  t.is(weird.status, 400);
});

test('a form of the profile step outside an embed flow is refused', async (t) => {
  const browser = new FlowBrowser(system.url);
  const signIn = asPage(await browser.open(ordinaryAuthorizeUrl()));
  const form = formOf(signIn.html, '/signin')!;
  const response = await postForm(browser, new URL(form.action.replace(/signin$/, 'profile'), system.url), {
    _csrf: form.hidden._csrf!,
    name: 'x',
  });
  t.is(response.status, 400);
  t.is(response.headers.get('x-frame-options'), 'DENY', 'an ordinary page, not an embed one');
});

test('remembered consent does not skip the click in the embed; Deny posts authorization:denied', async (t) => {
  const returning = await insertUser(system.stores.db.knex);
  // An ordinary authorization first: consent remembered for this client and scopes.
  const ordinary = await authorizeInBrowser(
    system.url,
    ordinaryAuthorizeUrl({ scope: client.client.scopes.join(' ') }),
    { user: returning },
  );
  t.is(ordinary.outcome.kind, 'redirect');
  // The same browser session comes back through the embed: the consent page is shown anyway.
  const again = asPage(
    await ordinary.browser.open(embedUrl(system.url, request({ mode: 'popup', state: 'st-deny' }))),
  );
  t.regex(again.html, /wants to access your account/);
  const denied = asPage(await ordinary.browser.submit(again, '/consent', { decision: 'deny' }));
  t.deepEqual(pageMessage(denied.html), {
    type: 'authorization:denied',
    state: 'st-deny',
    iss: system.config.appUrl,
  });
  t.is(bodyData(denied.html).mode, 'popup');
});

test('sign-in from the embed: returning user with finished onboarding goes straight to consent', async (t) => {
  const returning = await insertUser(system.stores.db.knex);
  const browser = new FlowBrowser(system.url);
  const signUpPage = await openEmbed(browser, { prefill: { email: returning.email } });
  const signInHref = /href="([^"]*\/signin)"/.exec(signUpPage.html)?.[1];
  t.truthy(signInHref);
  const signIn = asPage(await browser.open(new URL(signInHref!, system.url)));
  t.regex(signIn.html, new RegExp(`value="${returning.email.replace('.', '\\.')}"`), 'prefilled');
  t.regex(signIn.html, /data-embed-close/);
  const consent = asPage(
    await browser.submit(signIn, '/signin', { email: returning.email, password: returning.password }),
  );
  t.regex(consent.html, /wants to access your account/);
  t.regex(consent.html, /Step 4 of 4/);
});

test('sign-up failures are reported as SIGNUP_FAILED', async (t) => {
  const browser = new FlowBrowser(system.url);
  const page = await openEmbed(browser);
  const bad = asPage(
    await browser.submit(page, '/signup', { name: '', email: 'nope', username: '!', password: 'x' }),
  );
  t.is(bad.status, 400);
  t.is(pageMessage(bad.html)?.code, 'SIGNUP_FAILED');
  t.is(bodyData(bad.html)['parent-origin'], PARENT);
});

test('the result is posted only to an origin that is still registered when the flow ends', async (t) => {
  // Two sites; the request's redirect_uri is on the second, the embedding page on the first.
  const moving = await createEmbedClient(system.stores.db.knex, PARENT, {
    redirectUris: [`${PARENT}/callback`, `${OTHER_ORIGIN}/callback`],
  });
  const viaOther = { ...moving, redirectUri: `${OTHER_ORIGIN}/callback` };
  const returning = await insertUser(system.stores.db.knex);
  const browser = new FlowBrowser(system.url);
  const first = await openEmbed(browser, { client: viaOther, parentOrigin: PARENT, mode: 'popup' });
  const signInHref = /href="([^"]*\/signin)"/.exec(first.html)![1]!;
  const signIn = asPage(await browser.open(new URL(signInHref, system.url)));
  const consent = asPage(
    await browser.submit(signIn, '/signin', { email: returning.email, password: returning.password }),
  );
  t.is(bodyData(consent.html)['parent-origin'], PARENT);
  // The developer removes the first site while the user is on the consent page; the request's
  // redirect_uri stays registered, so the authorization itself succeeds.
  await updateOAuthClient(system.stores.db.knex, system.stores.tokenStore, moving.client.id, {
    redirectUris: [`${OTHER_ORIGIN}/callback`],
  });
  const result = asPage(await browser.submit(consent, '/consent', { decision: 'allow' }));
  t.is(result.status, 400);
  t.regex(result.html, /This site cannot embed Scheduling/);
  t.notRegex(result.html, /all set/);
  t.is(bodyData(result.html)['parent-origin'], undefined, 'no target origin');
  t.is(pageMessage(result.html), null, 'the code is not handed to the page');
});

test('a refused CalDAV form of the calendar step is reported as ONBOARDING_FAILED, like the rest of the step', async (t) => {
  const browser = new FlowBrowser(system.url);
  const who = unique();
  const { page: profile } = await signUp(browser, await openEmbed(browser), who);
  const calendar = asPage(
    await browser.submit(profile, '/profile', {
      name: 'Ada Lovelace',
      username: `ada-${who}`,
      time_zone: 'UTC',
      week_start: 'Monday',
    }),
  );
  const caldav = formOf(calendar.html, '/calendar/caldav');
  t.truthy(caldav, 'the calendar step offers CalDAV');
  // Without its CSRF token: refused before the handler, by the flow's error page.
  const refused = await postForm(browser, new URL(caldav!.action, system.url), {
    server_url: 'https://caldav.example/',
    username: 'ada',
    password: 'secret',
  });
  t.is(refused.status, 403);
  const html = await refused.text();
  t.is(bodyData(html)['parent-origin'], PARENT);
  t.is(pageMessage(html)?.code, 'ONBOARDING_FAILED');
});
