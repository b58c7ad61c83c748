import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import type { TestClient } from '../support/factories.ts';
import {
  FlowBrowser,
  type PageResult,
  type RedirectResult,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { bodyData, createEmbedClient, type EmbedRequest, embedUrl, pageMessage } from './helpers.ts';

// The onboarding embed opened by agents (docs/agents.md) next to a regular client, all with the
// same entry parameters as test/embed-flow/http.test.ts. Once an administrator has approved it, an
// agent known by its metadata document or by dynamic registration goes through the same flow as a
// regular client: framed by its redirect origins only, the result posted to its parent origin, the
// code exchanged for tokens. Before approval its embed is refused (test/agents/unverified-redirects).

const PARENT = 'http://127.0.0.1:4555';
const REDIRECT = `${PARENT}/callback`;
const SCOPE = 'PROFILE_READ EVENT_TYPE_READ';

const documents = setUpDocumentServer(test);
const world = setUpWorld(test, { env: { OUTBOUND_PRIVATE_NETWORKS: 'allow', DCR_ENABLED: 'true' } });

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

/** A metadata document naming REDIRECT, served at a fresh path; returns its URL (the client_id). */
function documentAgent(name: string): string {
  const path = `/embed-agents/${unique()}.json`;
  const clientId = `${documents().origin}${path}`;
  documents().serve(path, { body: agentDocument(clientId, REDIRECT, { client_name: name }) });
  return clientId;
}

/** A public client registered dynamically with REDIRECT; returns its client_id. */
async function dynamicAgent(name: string): Promise<string> {
  const response = await fetch(new URL('/v2/auth/oauth2/register', world.system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${JSON.stringify(body)}`);
  return String(body.client_id);
}

/** The admin approval of the review queue (the console's action goes through the same function). */
async function approve(clientId: string): Promise<void> {
  const answer = await world.call('POST', `/v2/admin/oauth-clients/${encodeURIComponent(clientId)}/approve`, {
    token: world.admin.apiKey,
  });
  if (answer.status !== 200) throw new Error(`approve: ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** The client's row as a test client of the embed helpers (public: no secret). */
async function asTestClient(clientId: string): Promise<TestClient> {
  const client = await findOAuthClient(world.knex(), clientId);
  if (!client) throw new Error(`no row for ${clientId}`);
  return { client, secret: null, redirectUri: REDIRECT };
}

/** The three kinds of client, each approved, with REDIRECT as their redirect URI. */
const kinds: Array<[string, () => Promise<TestClient>]> = [
  ['a regular client', async () => createEmbedClient(world.knex(), PARENT)],
  [
    'an approved metadata-document agent',
    async () => {
      const clientId = documentAgent('Document Agent');
      await approve(clientId);
      return asTestClient(clientId);
    },
  ],
  [
    'an approved dynamically registered agent',
    async () => {
      const clientId = await dynamicAgent(`Registered Agent ${unique()}`);
      await approve(clientId);
      return asTestClient(clientId);
    },
  ],
];

const request = (client: TestClient, extra: Partial<EmbedRequest> = {}): EmbedRequest => ({
  client,
  parentOrigin: PARENT,
  scope: SCOPE,
  challenge: pkcePair().challenge,
  ...extra,
});

function asPage(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

const frameAncestors = (response: Response) =>
  /frame-ancestors ([^;]*)/.exec(response.headers.get('content-security-policy') ?? '')?.[1];

/** Follows the entry's own redirects (the cookie check) to the first answer that is not one. */
async function openEntry(browser: FlowBrowser, url: URL) {
  let target = url;
  for (let hops = 0; hops < 5; hops++) {
    const response = await browser.request(target);
    const html = await response.text();
    const location = response.headers.get('location');
    if (!location) return { response, html };
    target = new URL(location, target);
  }
  throw new Error('too many redirects');
}

for (const [kind, make] of kinds) {
  test(`${kind}: the whole embed flow, framed by its redirect origin, code exchanged for tokens`, async (t) => {
    const client = await make();
    const pkce = pkcePair();
    const browser = new FlowBrowser(world.system.url);
    const entry = embedUrl(world.system.url, request(client, { challenge: pkce.challenge, state: 'st-1' }));
    const { response } = await openEntry(new FlowBrowser(world.system.url), entry);
    t.is(response.status, 200);
    t.is(frameAncestors(response), PARENT);
    t.is(response.headers.get('x-frame-options'), null);

    const who = unique();
    const signUp = asPage(await browser.open(entry));
    t.regex(signUp.html, /Create account/);
    t.is(bodyData(signUp.html)['parent-origin'], PARENT);
    const profile = asPage(
      await browser.submit(signUp, '/signup', {
        name: 'Ada Lovelace',
        email: `embed-agent-${who}@example.com`,
        username: `ada-${who}`,
        password: 'correct horse battery',
      }),
    );
    t.regex(profile.html, /Set up your profile/);
    const calendar = asPage(
      await browser.submit(profile, '/profile', {
        name: 'Ada Lovelace',
        username: `ada-${who}`,
        time_zone: 'Europe/London',
        week_start: 'Monday',
      }),
    );
    const consent = asPage(await browser.submit(calendar, '/calendar', { action: 'skip' }));
    t.regex(consent.html, /wants to access your account/);
    const result = asPage(await browser.submit(consent, '/consent', { decision: 'allow' }));
    t.is(result.status, 200);
    t.is(bodyData(result.html)['parent-origin'], PARENT);
    const message = pageMessage(result.html)!;
    t.like(message, { type: 'authorization:allowed', state: 'st-1', iss: world.system.config.appUrl });

    const tokens = await tokenRequest(world.system.url, {
      client_id: client.client.id,
      grant_type: 'authorization_code',
      code: String(message.code),
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
    });
    t.is(tokens.status, 200, JSON.stringify(tokens.body));
    t.is(tokens.body.scope, SCOPE);
  });

  test(`${kind}: a parent_origin that is not its redirect origin is refused, nothing posted`, async (t) => {
    const client = await make();
    const url = embedUrl(world.system.url, request(client, { parentOrigin: 'https://evil.example' }));
    const { response, html } = await openEntry(new FlowBrowser(world.system.url), url);
    t.is(response.status, 400);
    t.regex(html, /parent_origin is not the origin of one of the redirect addresses/);
    t.is(bodyData(html)['parent-origin'], undefined);
    t.is(frameAncestors(response), PARENT, 'still framed by its own origin only');
  });

  // What was seen as "an approved agent's embed answers 400": a request without `theme`, which
  // the component always sends. Every kind of client gets the same answer for it.
  test(`${kind}: an entry without theme is the same 400 for every client`, async (t) => {
    const client = await make();
    const url = embedUrl(world.system.url, request(client));
    url.searchParams.delete('theme');
    const { response, html } = await openEntry(new FlowBrowser(world.system.url), url);
    t.is(response.status, 400);
    t.regex(html, /Invalid embed parameters: theme\./);
    t.is(bodyData(html)['parent-origin'], PARENT, 'the parent origin was checked: the error is posted');
    t.like(pageMessage(html), { type: 'onboarding:error', code: 'AUTHORIZATION_FAILED' });
  });
}

test('the same agents before approval: not framed, refused; after approval the same entry works', async (t) => {
  const agents = [documentAgent('Pending Document Agent'), await dynamicAgent(`Pending Agent ${unique()}`)];
  for (const clientId of agents) {
    const entry = () =>
      embedUrl(world.system.url, {
        // Only its id is read: the scope is given.
        client: { client: { id: clientId } as TestClient['client'], secret: null, redirectUri: REDIRECT },
        parentOrigin: PARENT,
        scope: SCOPE,
        challenge: pkcePair().challenge,
      });
    const pending = await openEntry(new FlowBrowser(world.system.url), entry());
    t.is(pending.response.status, 400, clientId);
    t.is(frameAncestors(pending.response), "'none'");
    t.is(bodyData(pending.html)['parent-origin'], undefined);
    // Its parent_origin is its redirect origin: the page says what is actually missing.
    t.regex(pending.html, /has not been approved by an administrator yet/);
    t.notRegex(pending.html, /parent_origin is not the origin/);

    await approve(clientId);
    const approved = await openEntry(new FlowBrowser(world.system.url), entry());
    t.is(approved.response.status, 200, clientId);
    t.is(frameAncestors(approved.response), PARENT);
    t.regex(approved.html, /Create account/);
  }
});
