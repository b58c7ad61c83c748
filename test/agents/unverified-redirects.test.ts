import test from 'ava';
import { errorRedirectAllowed } from '@sched/policy/agent-clients';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair } from '../support/oauth.ts';
import { insertUser } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';

// Anyone can publish a client metadata document naming any site as its redirect URI. Until an
// administrator approves such an agent, an authorization error the user did nothing to cause is
// shown on a page instead of sending the browser there: otherwise this server's authorize URL
// would be an open redirector to a phishing page (RFC 9700 4.11.2). Loopback redirects (the
// user's own computer) and approved agents get their errors as before. Likewise the onboarding
// embed may be framed only by the origins of reviewed redirect URIs.

const documents = setUpDocumentServer(test);
const world = setUpWorld(test, { env: { OUTBOUND_PRIVATE_NETWORKS: 'allow' } });
const PHISH = 'https://phish.example.com/login';

let served = 0;
function agent(redirectUri: string): string {
  const path = `/unverified/${++served}.json`;
  const clientId = `${documents().origin}${path}`;
  documents().serve(path, { body: agentDocument(clientId, redirectUri, { client_name: 'Helpful Agent' }) });
  return clientId;
}

const request = (clientId: string, redirectUri: string, extra: Record<string, string>) =>
  fetch(
    authorizeUrl(world.system.url, {
      client_id: clientId,
      redirect_uri: redirectUri,
      state: 's',
      scope: 'PROFILE_READ',
      code_challenge: pkcePair().challenge,
      ...extra,
    }),
    { redirect: 'manual' },
  );

test('the rule: settings clients and approved agents redirect; pending agents only to loopback', (t) => {
  t.true(errorRedirectAllowed('settings', 'APPROVED', PHISH));
  t.true(errorRedirectAllowed('metadata_document', 'APPROVED', PHISH));
  t.false(errorRedirectAllowed('metadata_document', 'PENDING', PHISH));
  t.false(errorRedirectAllowed('dynamic', 'PENDING', PHISH));
  t.true(errorRedirectAllowed('metadata_document', 'PENDING', 'http://127.0.0.1:4100/cb'));
  t.true(errorRedirectAllowed('dynamic', 'PENDING', 'http://localhost:4100/cb'));
});

for (const [title, extra] of [
  ['an unknown scope', { scope: 'NOPE' }],
  ['a scope above the pending ceiling', { scope: 'ORG_PROFILE_WRITE' }],
  ['response_type=token', { response_type: 'token' }],
  ['an unknown resource', { resource: 'https://evil.example.com/' }],
  ['code_challenge_method=plain', { code_challenge_method: 'plain' }],
  ['prompt=none without a session', { prompt: 'none' }],
] as const) {
  test(`a pending agent with an https redirect: ${title} is an error page, never a redirect`, async (t) => {
    const response = await request(agent(PHISH), PHISH, extra);
    t.is(response.status, 400);
    t.is(response.headers.get('location'), null);
    const html = await response.text();
    t.regex(html, /Application not verified/);
    t.regex(html, /does not send you on to phish\.example\.com/);
  });
}

test('a pending agent with a loopback redirect still gets its error by redirect', async (t) => {
  const redirectUri = 'http://127.0.0.1:49170/callback';
  const response = await request(agent(redirectUri), redirectUri, { scope: 'NOPE' });
  t.is(response.status, 303);
  const location = new URL(response.headers.get('location')!);
  t.is(`${location.origin}${location.pathname}`, redirectUri);
  t.is(location.searchParams.get('error'), 'invalid_scope');
});

test('an approved agent gets its errors by redirect', async (t) => {
  const clientId = agent(PHISH);
  const approved = await world.call(
    'POST',
    `/v2/admin/oauth-clients/${encodeURIComponent(clientId)}/approve`,
    {
      token: world.admin.apiKey,
    },
  );
  t.is(approved.status, 200, JSON.stringify(approved.body));
  const response = await request(clientId, PHISH, { scope: 'NOPE' });
  t.is(response.status, 303);
  t.is(new URL(response.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
});

test('a pending agent: the user who signs in and clicks Deny is sent back with access_denied', async (t) => {
  const user = await insertUser(world.knex());
  const clientId = agent(PHISH);
  const { outcome, consentShown } = await authorizeInBrowser(
    world.system.url,
    authorizeUrl(world.system.url, {
      client_id: clientId,
      redirect_uri: PHISH,
      state: 's',
      scope: 'PROFILE_READ',
      code_challenge: pkcePair().challenge,
    }),
    { user, decision: 'deny' },
  );
  t.true(consentShown);
  if (outcome.kind !== 'redirect') return t.fail(outcome.html);
  t.is(outcome.url.searchParams.get('error'), 'access_denied');
});

/** The embed entry for an agent, followed to its page: the page's status and framing header. */
async function embedEntry(clientId: string) {
  const url = new URL('/auth/embed/onboarding', world.system.url);
  for (const [name, value] of Object.entries({
    client_id: clientId,
    redirect_uri: PHISH,
    scope: 'PROFILE_READ',
    state: 's',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    // Always sent by the component; without it every client's entry is a 400.
    theme: 'light',
    parent_origin: new URL(PHISH).origin,
  }))
    url.searchParams.set(name, value);
  const browser = new FlowBrowser(world.system.url);
  let target = url;
  for (let hops = 0; hops < 5; hops++) {
    const response = await browser.request(target);
    await response.arrayBuffer();
    const location = response.headers.get('location');
    if (!location)
      return { status: response.status, csp: response.headers.get('content-security-policy') ?? '' };
    target = new URL(location, target);
  }
  throw new Error('too many redirects');
}

test('the embed of a pending agent cannot be framed by its redirect origin; an approved one can', async (t) => {
  const pending = await embedEntry(agent(PHISH));
  t.regex(pending.csp, /frame-ancestors 'none'/);
  t.notRegex(pending.csp, /phish\.example\.com/);
  t.is(pending.status, 400, 'the parent origin is not one the flow may talk to');

  const clientId = agent(PHISH);
  const approved = await world.call(
    'POST',
    `/v2/admin/oauth-clients/${encodeURIComponent(clientId)}/approve`,
    {
      token: world.admin.apiKey,
    },
  );
  t.is(approved.status, 200);
  const framed = await embedEntry(clientId);
  t.regex(framed.csp, /frame-ancestors https:\/\/phish\.example\.com/);
  t.is(framed.status, 200, 'the flow starts');
});
