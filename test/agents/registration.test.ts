import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Dynamic client registration (RFC 7591, DCR_ENABLED=true): public clients only, recorded PENDING
// like every unknown agent, identical registrations answered with the same client, rate-limited
// per address. This system runs without OUTBOUND_PRIVATE_NETWORKS, so a metadata document on a
// loopback address is refused before anything is sent to it. Serial: the tests share one
// registration rate-limit counter, which the last one exhausts.

const LIMIT = 8;
const documents = setUpDocumentServer(test);

const { system, knex, user, admin, call } = setUpWorld(test, {
  env: { DCR_ENABLED: 'true', RATE_LIMITS: `client-registration=${LIMIT}/1h` },
});

let registrations = 0;
const REDIRECT = 'http://127.0.0.1:49153/callback';

async function register(body: Record<string, unknown>) {
  registrations++;
  const response = await fetch(new URL('/v2/auth/oauth2/register', system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const publicAgent = (name: string) => ({
  client_name: name,
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

test.serial('discovery names the registration endpoint and client metadata document support', async (t) => {
  const document = (await (
    await fetch(new URL('/.well-known/oauth-authorization-server', system.url))
  ).json()) as Record<string, unknown>;
  t.is(document.registration_endpoint, `${system.url}/v2/auth/oauth2/register`);
  t.is(document.client_id_metadata_document_supported, true);
});

test.serial(
  'a public client registers: PENDING, no owner, no secret, in the review queue as dynamic',
  async (t) => {
    const answer = await register(publicAgent('Registered Agent'));
    t.is(answer.status, 201, JSON.stringify(answer.body));
    const clientId = String(answer.body.client_id);
    t.regex(clientId, /^dcr_/);
    t.is(answer.body.client_secret, undefined);
    t.is(answer.body.token_endpoint_auth_method, 'none');
    const row = await knex()('oauth_clients').where({ id: clientId }).first();
    t.like(row, {
      registration: 'dynamic',
      review_status: 'PENDING',
      owner_user_id: null,
      client_type: 'public',
    });
    const queue = await call('GET', '/v2/admin/oauth-clients?reviewStatus=PENDING&take=250', {
      token: admin.apiKey,
    });
    t.like(
      queue.body.data.find((client: { id: string }) => client.id === clientId),
      { registration: 'dynamic', name: 'Registered Agent' },
    );
  },
);

test.serial('confidential registrations are refused: a secret-based method, or none named', async (t) => {
  for (const method of ['client_secret_basic', 'client_secret_post', undefined]) {
    const body: Record<string, unknown> = {
      ...publicAgent('Confidential'),
      token_endpoint_auth_method: method,
    };
    if (method === undefined) delete body.token_endpoint_auth_method;
    const answer = await register(body);
    t.is(answer.status, 400, String(method));
    t.is(answer.body.error, 'invalid_client_metadata');
    t.regex(String(answer.body.error_description), /only public clients/);
  }
});

test.serial('an identical registration is answered with the same client', async (t) => {
  const first = await register(publicAgent('Twice'));
  const second = await register(publicAgent('Twice'));
  t.is(first.status, 201);
  t.is(second.status, 201);
  t.is(second.body.client_id, first.body.client_id);
  t.is((await knex()('oauth_clients').where({ id: String(first.body.client_id) })).length, 1);
  const other = await register(publicAgent('Another name'));
  t.not(other.body.client_id, first.body.client_id);
});

test.serial(
  'a pending registered agent is authorized within the ceiling, as an Unverified app',
  async (t) => {
    const answer = await register(publicAgent('Unverified Agent'));
    const pkce = pkcePair();
    const url = authorizeUrl(system.url, {
      client_id: String(answer.body.client_id),
      redirect_uri: REDIRECT,
      scope: 'PROFILE_READ BOOKING_WRITE',
      state: 's',
      code_challenge: pkce.challenge,
    });
    const browser = new FlowBrowser(system.url);
    const page = await browser.open(url);
    if (page.kind !== 'page') return t.fail('no page');
    const consent = await browser.submit(page, '/signin', { email: user.email, password: user.password });
    if (consent.kind !== 'page') return t.fail('no consent page');
    t.regex(consent.html, /Unverified app/);
    t.regex(consent.html, /self-registered/);
    t.notRegex(consent.html, /BOOKING_WRITE/);
    const { outcome } = await authorizeInBrowser(system.url, url, { browser, user });
    t.is(outcome.kind, 'redirect');
  },
);

test.serial('a metadata document on a special-use address is refused without the override', async (t) => {
  const path = '/loopback.json';
  const clientId = documents().serve(path, { body: agentDocument(`${documents().origin}${path}`, REDIRECT) });
  const pkce = pkcePair();
  const page = await new FlowBrowser(system.url).open(
    authorizeUrl(system.url, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: pkce.challenge,
    }),
  );
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /cannot be used/);
  t.is(documents().fetches(path), 0, 'nothing reached the address');
  t.is(await knex()('oauth_clients').where({ id: clientId }).first(), undefined);
});

test.serial('registrations are rate-limited per address', async (t) => {
  let answer = await register(publicAgent(`Flood ${registrations}`));
  while (answer.status === 201 && registrations <= LIMIT + 1)
    answer = await register(publicAgent(`Flood ${registrations}`));
  t.is(answer.status, 429);
  t.truthy(answer.headers.get('retry-after'));
});
