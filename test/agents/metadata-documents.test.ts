import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { openPage, setUpChromium } from '../support/browser.ts';
import { apiClient } from '../support/http.ts';
import { type SecondApi, startSecondApi } from '../api/helpers/second-api.ts';

// Agents known by a Client ID Metadata Document (docs/agents.md): the document is served over https
// by this test (its own CA) on a loopback port, which OUTBOUND_PRIVATE_NETWORKS=allow lets the
// server reach. Review mode (the default AGENT_CLIENTS): the first use records the agent PENDING,
// it may be given the pending scopes only, and the consent page says `Unverified app`.

const documents = setUpDocumentServer(test);
const REDIRECT = 'http://127.0.0.1:49152/callback';

let second: SecondApi;
const two = apiClient(() => second.url);

test.after.always(async () => {
  await second?.close();
});

const { system, knex, user, admin, call, clients } = setUpWorld(test, {
  // No refresh retry window, so a replayed refresh token is reuse at once.
  env: { OUTBOUND_PRIVATE_NETWORKS: 'allow', AGENT_TRUSTED_HOSTS: 'localhost', REFRESH_REUSE_INTERVAL: '0' },
  clients: { waiting: { status: 'PENDING', type: 'public' } },
});

const chromium = setUpChromium(test);

// A second resource API (its own caches) sees the same revocations on its next request.
test.before(async () => {
  second = await startSecondApi(system);
});

let served = 0;
/** A new agent's document (a fresh path each time: the server's document cache is per URL). */
function newAgent(extra: Record<string, unknown> = {}, host = '127.0.0.1'): string {
  const path = `/agents/${++served}.json`;
  const url = `https://${host}:${documents().port}${path}`;
  documents().serve(path, { body: agentDocument(url, REDIRECT, extra) }, host);
  return url;
}

function authorizeParams(clientId: string, scope?: string) {
  const pkce = pkcePair();
  const params: Record<string, string> = {
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'st',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  };
  if (scope !== undefined) params.scope = scope;
  return { params, verifier: pkce.verifier };
}

async function authorize(clientId: string, scope?: string, browser?: FlowBrowser) {
  const { params, verifier } = authorizeParams(clientId, scope);
  const result = await authorizeInBrowser(system.url, authorizeUrl(system.url, params), {
    user,
    ...(browser ? { browser } : {}),
  });
  return { ...result, verifier };
}

const row = (clientId: string) => knex()('oauth_clients').where({ id: clientId }).first();

test('a pending agent: recorded on first use, Unverified app, read scopes only, tokens and refresh', async (t) => {
  const clientId = newAgent();
  const browser = new FlowBrowser(system.url);
  const { params, verifier } = authorizeParams(clientId, 'PROFILE_READ BOOKING_WRITE');
  const page = await browser.open(authorizeUrl(system.url, params));
  t.is(page.kind, 'page');
  let outcome = page;
  if (page.kind === 'page' && page.html.includes('/signin')) {
    const { formOf } = await import('../support/oauth.ts');
    t.truthy(formOf(page.html, '/signin'));
    outcome = await browser.submit(page, '/signin', { email: user.email, password: user.password });
  }
  if (outcome.kind !== 'page') return t.fail('no consent page');
  t.regex(outcome.html, /Unverified app/);
  t.regex(outcome.html, new RegExp(`127\\.0\\.0\\.1:${documents().port}`), 'the client_id host');
  t.regex(outcome.html, /127\.0\.0\.1:49152/, 'the redirect host');
  t.regex(outcome.html, /on this computer/, 'the loopback warning');
  t.regex(outcome.html, /PROFILE_READ/);
  t.notRegex(outcome.html, /BOOKING_WRITE/, 'a write scope is beyond the pending ceiling');

  const stored = await row(clientId);
  t.is(stored.review_status, 'PENDING');
  t.is(stored.registration, 'metadata_document');
  t.is(stored.owner_user_id, null);
  t.is(stored.name, 'Test Agent');

  const done = await browser.submit(outcome, '/consent', { decision: 'allow' });
  if (done.kind !== 'redirect') return t.fail('no redirect');
  const code = done.url.searchParams.get('code')!;
  const tokens = await tokenRequest(system.url, {
    client_id: clientId,
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));
  t.is(tokens.body.scope, 'PROFILE_READ');
  t.truthy(tokens.body.refresh_token, 'public agents get refresh tokens');
  t.is((await call('GET', '/v2/me', { token: String(tokens.body.access_token) })).status, 200);

  const refreshed = await tokenRequest(system.url, {
    client_id: clientId,
    grant_type: 'refresh_token',
    refresh_token: String(tokens.body.refresh_token),
  });
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
  t.not(refreshed.body.refresh_token, tokens.body.refresh_token, 'rotated');
});

test("reuse of an agent's old refresh token ends the authorization (reuse detection)", async (t) => {
  const clientId = newAgent();
  const tokens = await tokensFor(clientId, 'PROFILE_READ');
  const refresh = (refreshToken: string) =>
    tokenRequest(system.url, {
      client_id: clientId,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  const next = await refresh(tokens.refresh_token);
  t.is(next.status, 200);
  const replay = await refresh(tokens.refresh_token);
  t.is(replay.status, 400);
  t.is(replay.body.error, 'invalid_grant');
  t.is((await refresh(String(next.body.refresh_token))).status, 400, 'the successor ended too');
  t.is((await call('GET', '/v2/me', { token: String(next.body.access_token) })).status, 401);
});
test('a trusted host is approved on first use and may be given write scopes', async (t) => {
  const clientId = newAgent({}, 'localhost');
  const { outcome, consentShown } = await authorize(clientId, 'PROFILE_READ BOOKING_WRITE');
  t.true(consentShown);
  t.is(outcome.kind, 'redirect');
  const stored = await row(clientId);
  t.is(stored.review_status, 'APPROVED');
});

/** Serves `document` (or a raw answer) at a fresh path; its URL is the client_id. */
function serveRaw(
  answer: { body: unknown; status?: number; headers?: Record<string, string> },
  path?: string,
) {
  const at = path ?? `/raw/${++served}.json`;
  return documents().serve(at, answer);
}

async function pageFor(clientId: string) {
  const { params } = authorizeParams(clientId, 'PROFILE_READ');
  return new FlowBrowser(system.url).open(authorizeUrl(system.url, params));
}

const refusals: Array<
  [string, (url: string) => { body: unknown; status?: number; headers?: Record<string, string> }, RegExp]
> = [
  [
    'its client_id is another URL',
    (url) => ({ body: agentDocument(`${url}?other`, REDIRECT) }),
    /does not match/,
  ],
  [
    'it holds a client_secret',
    (url) => ({ body: agentDocument(url, REDIRECT, { client_secret: 'shh' }) }),
    /client_secret/,
  ],
  [
    'it uses a secret-based auth method',
    (url) => ({ body: agentDocument(url, REDIRECT, { token_endpoint_auth_method: 'client_secret_post' }) }),
    /shared-secret/,
  ],
  [
    'it uses another auth method than none',
    (url) => ({
      body: agentDocument(url, REDIRECT, {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [] },
      }),
    }),
    /only public clients/,
  ],
  [
    'it is larger than 5 KB',
    (url) => ({ body: agentDocument(url, REDIRECT, { client_name: 'x'.repeat(6000) }) }),
    /larger than 5 KB/,
  ],
  ['it is not JSON', () => ({ body: 'this is not json' }), /not JSON/],
  [
    'its URL redirects',
    (url) => ({ body: '', status: 302, headers: { location: `${url}-moved` } }),
    /redirect/,
  ],
];

for (const [title, answer, message] of refusals) {
  test(`a metadata document is refused when ${title}, and nothing is recorded`, async (t) => {
    const path = `/refused/${++served}.json`;
    const url = `https://127.0.0.1:${documents().port}${path}`;
    serveRaw(answer(url), path);
    const page = await pageFor(url);
    t.is(page.kind, 'page');
    if (page.kind !== 'page') return;
    t.is(page.status, 400);
    t.regex(page.html, /cannot be used/);
    t.regex(page.html, message);
    t.is(await row(url), undefined);
    const token = await tokenRequest(system.url, {
      client_id: url,
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: REDIRECT,
      code_verifier: 'x'.repeat(43),
    });
    t.is(token.status, 401);
    t.is(token.body.error, 'invalid_client');
  });
}

test('an http client_id is no metadata document: unknown application', async (t) => {
  const path = `/plain/${++served}.json`;
  const url = `http://127.0.0.1:${documents().port}${path}`;
  documents().serve(path, { body: agentDocument(url, REDIRECT) });
  const page = await pageFor(url);
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /No application is registered/);
  t.is(documents().fetches(path), 0, 'nothing was fetched');
});

test('20 concurrent first uses fetch the document once and record the agent once', async (t) => {
  const clientId = newAgent();
  const path = new URL(clientId).pathname;
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => {
      const { params } = authorizeParams(clientId, 'PROFILE_READ');
      return fetch(authorizeUrl(system.url, params), { redirect: 'manual' });
    }),
  );
  t.true(
    answers.every((answer) => answer.status === 303),
    answers.map((a) => a.status).join(),
  );
  t.is(documents().fetches(path), 1);
  t.is((await knex()('oauth_clients').where({ id: clientId })).length, 1);
  // Later uses are served from the cache (the document said nothing: kept for the minimum, 60 s).
  const { params } = authorizeParams(clientId, 'PROFILE_READ');
  t.is((await fetch(authorizeUrl(system.url, params), { redirect: 'manual' })).status, 303);
  t.is(documents().fetches(path), 1);
});

async function tokensFor(clientId: string, scope: string) {
  const { outcome, verifier } = await authorize(clientId, scope);
  if (outcome.kind !== 'redirect') throw new Error(`no redirect: ${outcome.html}`);
  const answer = await tokenRequest(system.url, {
    client_id: clientId,
    grant_type: 'authorization_code',
    code: outcome.url.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return answer.body as { access_token: string; refresh_token: string; scope: string };
}

const encoded = (clientId: string) => encodeURIComponent(clientId);

test('the review queue lists a pending agent as one; approval lifts the ceiling for later authorizations', async (t) => {
  const clientId = newAgent();
  const before = await tokensFor(clientId, 'PROFILE_READ BOOKING_WRITE');
  t.is(before.scope, 'PROFILE_READ');

  const queue = await call('GET', '/v2/admin/oauth-clients?reviewStatus=PENDING&take=250', {
    token: admin.apiKey,
  });
  t.is(queue.status, 200);
  const listed = queue.body.data.find((client: { id: string }) => client.id === clientId);
  t.like(listed, {
    registration: 'metadata_document',
    ownerUserId: null,
    clientType: 'public',
    name: 'Test Agent',
  });

  const approved = await call('POST', `/v2/admin/oauth-clients/${encoded(clientId)}/approve`, {
    token: admin.apiKey,
  });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  t.is(approved.body.data.reviewStatus, 'APPROVED');

  const after = await tokensFor(clientId, 'PROFILE_READ BOOKING_WRITE');
  t.deepEqual(after.scope.split(' ').sort(), ['BOOKING_WRITE', 'PROFILE_READ']);
});

test('rejection ends every token of the agent on the next request; the agent can no longer be used', async (t) => {
  const clientId = newAgent();
  const tokens = await tokensFor(clientId, 'PROFILE_READ');
  for (const api of [call, two])
    t.is((await api('GET', '/v2/me', { token: tokens.access_token })).status, 200);

  const rejected = await call('POST', `/v2/admin/oauth-clients/${encoded(clientId)}/reject`, {
    token: admin.apiKey,
    body: { reason: 'Not an agent we know' },
  });
  t.is(rejected.status, 200, JSON.stringify(rejected.body));

  for (const api of [call, two])
    t.is((await api('GET', '/v2/me', { token: tokens.access_token })).status, 401);
  const refreshed = await tokenRequest(system.url, {
    client_id: clientId,
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(refreshed.status, 401);
  t.like(refreshed.body, { error: 'unauthorized_client', error_description: 'client_rejected' });
  const page = await pageFor(clientId);
  t.regex(page.kind === 'page' ? page.html : '', /rejected during review/);
});

test('a client registered in settings keeps the seed rule: pending means the not-approved page', async (t) => {
  const page = await pageFor(clients.waiting.client.id);
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /Application not approved yet/);
});

test('an agent asking for no scope gets the read scopes of its own account within the ceiling', async (t) => {
  const clientId = newAgent();
  const { outcome, verifier } = await authorize(clientId);
  if (outcome.kind !== 'redirect') return t.fail(outcome.html);
  const answer = await tokenRequest(system.url, {
    client_id: clientId,
    grant_type: 'authorization_code',
    code: outcome.url.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  t.deepEqual(String(answer.body.scope).split(' ').sort(), [
    'BOOKING_READ',
    'EVENT_TYPE_READ',
    'PROFILE_READ',
    'SCHEDULE_READ',
  ]);
});

test('dynamic registration is off by default: no registration_endpoint, and the path is a 404', async (t) => {
  const document = (await (
    await fetch(new URL('/.well-known/oauth-authorization-server', system.url))
  ).json()) as Record<string, unknown>;
  t.is(document.registration_endpoint, undefined);
  t.is(document.client_id_metadata_document_supported, true);
  const answer = await fetch(new URL('/v2/auth/oauth2/register', system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  t.is(answer.status, 404);
});

test('in Chromium: the consent page of a pending agent says Unverified app, names both hosts, warns of loopback', async (t) => {
  const clientId = newAgent({ client_name: 'Chromium Agent' });
  const { params } = authorizeParams(clientId, 'PROFILE_READ');
  const { context, page, problems } = await openPage(chromium(), { width: 1024, height: 800 });
  try {
    await page.goto(authorizeUrl(system.url, params).href);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Chromium Agent wants to access your account' }).waitFor();
    const notes = page.getByRole('note');
    t.regex(await notes.first().innerText(), /Unverified app/);
    t.regex(await notes.nth(1).innerText(), /on this computer/);
    const text = await page.locator('main').innerText();
    t.regex(text, new RegExp(`127\\.0\\.0\\.1:${documents().port}`));
    t.regex(text, /127\.0\.0\.1:49152/);
    const redirected = page.waitForRequest((request) => request.url().startsWith(REDIRECT));
    await page.getByRole('button', { name: 'Allow' }).click();
    t.truthy(new URL((await redirected).url()).searchParams.get('code'));
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
