import test from 'ava';
import {
  agentDocument,
  type DocumentServer,
  makeCertificates,
  startDocumentServer,
  type TestCertificates,
  trustInThisProcess,
} from '../support/agent-documents.ts';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Agents known by a Client ID Metadata Document (contract §17): the document is served over https
// by this test (its own CA) on a loopback port, which OUTBOUND_PRIVATE_NETWORKS=allow lets the
// server reach. Review mode (the default AGENT_CLIENTS): the first use records the agent PENDING,
// it may be given the pending scopes only, and the consent page says `Unverified app`.

let certificates: TestCertificates;
let documents: DocumentServer;
const REDIRECT = 'http://127.0.0.1:49152/callback';

test.before(async () => {
  certificates = await makeCertificates();
  trustInThisProcess(certificates.ca);
  documents = await startDocumentServer(certificates);
});
test.after.always(async () => {
  await documents?.close();
  await certificates?.remove();
});

const { system, knex, user, call } = setUpWorld(test, {
  env: { OUTBOUND_PRIVATE_NETWORKS: 'allow', AGENT_TRUSTED_HOSTS: 'localhost' },
});

let served = 0;
/** A new agent's document (a fresh path each time: the server's document cache is per URL). */
function newAgent(extra: Record<string, unknown> = {}, host = '127.0.0.1'): string {
  const path = `/agents/${++served}.json`;
  const url = `https://${host}:${documents.port}${path}`;
  documents.serve(path, { body: agentDocument(url, REDIRECT, extra) }, host);
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
  t.regex(outcome.html, new RegExp(`127\\.0\\.0\\.1:${documents.port}`), 'the client_id host');
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

test('a trusted host is approved on first use and may be given write scopes', async (t) => {
  const clientId = newAgent({}, 'localhost');
  const { outcome, consentShown } = await authorize(clientId, 'PROFILE_READ BOOKING_WRITE');
  t.true(consentShown);
  t.is(outcome.kind, 'redirect');
  const stored = await row(clientId);
  t.is(stored.review_status, 'APPROVED');
});
