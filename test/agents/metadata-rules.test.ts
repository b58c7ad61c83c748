import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { authorizeUrl, FlowBrowser, formOf, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Agents describe themselves (a registration, a metadata document), and what they say is held to
// the rules of clients made in settings: no NUL or lone surrogate (hostile input is a 4xx, never a
// 500), a name of at most 100 characters, and no redirect URI that sends the authorization code
// over plain http to another computer (loopback only). Private-use schemes of native apps stay.

const documents = setUpDocumentServer(test);
const { system, knex, user } = setUpWorld(test, {
  env: { DCR_ENABLED: 'true', OUTBOUND_PRIVATE_NETWORKS: 'allow' },
});

async function register(body: Record<string, unknown>) {
  const response = await fetch(new URL('/v2/auth/oauth2/register', system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const registration = (extra: Record<string, unknown>) => ({
  client_name: 'Agent',
  redirect_uris: ['http://127.0.0.1:49153/callback'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

const refused: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ['a NUL in the name', { client_name: 'Agent\u0000' }, 'invalid_request', /NUL/],
  ['a lone surrogate in the name', { client_name: 'Agent \ud800' }, 'invalid_request', /surrogate/],
  [
    'a NUL in a redirect URI',
    { redirect_uris: ['https://agent.example/cb\u0000'] },
    'invalid_request',
    /NUL/,
  ],
  ['a name over 100 characters', { client_name: 'a'.repeat(101) }, 'invalid_client_metadata', /at most 100/],
  [
    'an http redirect URI to another host',
    { redirect_uris: ['http://agent.example/cb'] },
    'invalid_redirect_uri',
    /https/,
  ],
];

for (const [title, extra, error, description] of refused) {
  test.serial(`a registration with ${title} is a 400 ${error}, nothing recorded`, async (t) => {
    const before = await knex()('oauth_clients').where({ registration: 'dynamic' }).count({ n: '*' });
    const answer = await register(registration(extra));
    t.is(answer.status, 400, JSON.stringify(answer.body));
    t.is(answer.body.error, error);
    t.regex(String(answer.body.error_description), description);
    const after = await knex()('oauth_clients').where({ registration: 'dynamic' }).count({ n: '*' });
    t.deepEqual(after, before);
  });
}

test.serial(
  'registrations with https, loopback and private-use scheme redirect URIs are accepted',
  async (t) => {
    for (const uri of ['https://agent.example/cb', 'http://localhost:8080/cb', 'com.example.agent:/cb']) {
      const answer = await register(registration({ client_name: `Agent ${uri}`, redirect_uris: [uri] }));
      t.is(answer.status, 201, `${uri}: ${JSON.stringify(answer.body)}`);
    }
  },
);

async function registerRaw(headers: Record<string, string>, body: BodyInit) {
  const response = await fetch(new URL('/v2/auth/oauth2/register', system.url), {
    method: 'POST',
    headers,
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test.serial(
  'a registration body is taken as every other body here: unencoded UTF-8 JSON without NUL',
  async (t) => {
    const json = { 'content-type': 'application/json' };
    const valid = JSON.stringify(registration({ client_name: 'Body rules' }));
    const cases: Array<[string, Record<string, string>, BodyInit, RegExp]> = [
      ['a Content-Encoding', { ...json, 'content-encoding': 'br' }, valid, /Content-Encoding br/],
      ['another charset', { 'content-type': 'application/json; charset=latin1' }, valid, /UTF-8/],
      [
        'bytes that are not UTF-8',
        json,
        Buffer.concat([Buffer.from(valid.slice(0, -1)), Buffer.from(',"client_uri":"\xff"}', 'latin1')]),
        /UTF-8/,
      ],
      ['a NUL in a member name', json, JSON.stringify({ ...registration({}), 'x\u0000': 1 }), /NUL/],
      [
        'a NUL in a member the server ignores',
        json,
        JSON.stringify({ ...registration({}), extra: '\u0000' }),
        /NUL/,
      ],
      ['JSON that does not parse', json, '{"client_name":', /Malformed/],
    ];
    for (const [title, headers, body, description] of cases) {
      const answer = await registerRaw(headers, body);
      t.is(answer.status, 400, `${title}: ${JSON.stringify(answer.body)}`);
      t.is(answer.body.error, 'invalid_request', title);
      t.regex(String(answer.body.error_description), description, title);
    }
    t.is((await registerRaw(json, valid)).status, 201, 'the same registration, sent properly');
  },
);

let served = 0;
async function pageForDocument(extra: Record<string, unknown>, redirect: string) {
  const path = `/rules/${++served}.json`;
  const url = `https://127.0.0.1:${documents().port}${path}`;
  documents().serve(path, { body: agentDocument(url, redirect, extra) });
  const page = await new FlowBrowser(system.url).open(
    authorizeUrl(system.url, {
      client_id: url,
      redirect_uri: redirect,
      state: 's',
      scope: 'PROFILE_READ',
      code_challenge: pkcePair().challenge,
    }),
  );
  return { url, page };
}

test('a metadata document with a NUL in its name cannot be used (a page error, not a 500)', async (t) => {
  const { url, page } = await pageForDocument({ client_name: 'Agent\u0000' }, 'http://127.0.0.1:49153/cb');
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /cannot be used/);
  t.is(await knex()('oauth_clients').where({ id: url }).first(), undefined);
});

test('a metadata document with an http redirect URI to another host cannot be used', async (t) => {
  const { url, page } = await pageForDocument({}, 'http://agent.example/cb');
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /cannot be used/);
  t.regex(page.kind === 'page' ? page.html : '', /https/);
  t.is(await knex()('oauth_clients').where({ id: url }).first(), undefined);
});

test.serial(
  'the consent page of an agent returning to a private-use scheme names that address',
  async (t) => {
    const redirect = 'com.example.agent:/oauth/callback';
    const registered = await register(
      registration({ client_name: 'Native agent', redirect_uris: [redirect] }),
    );
    t.is(registered.status, 201, JSON.stringify(registered.body));
    const browser = new FlowBrowser(system.url);
    const page = await browser.open(
      authorizeUrl(system.url, {
        client_id: String(registered.body.client_id),
        redirect_uri: redirect,
        state: 's',
        scope: 'PROFILE_READ',
        code_challenge: pkcePair().challenge,
      }),
    );
    if (page.kind !== 'page' || !formOf(page.html, '/signin'))
      return t.fail(page.kind === 'page' ? page.html : page.url.href);
    const consent = await browser.submit(page, '/signin', { email: user.email, password: user.password });
    if (consent.kind !== 'page') return t.fail('no consent page');
    t.regex(consent.html, /<dt>Returns to<\/dt><dd>com\.example\.agent:\/oauth\/callback<\/dd>/);
  },
);
