import { randomBytes } from 'node:crypto';
import test from 'ava';
import { redirectUriAllowed } from '@sched/policy/redirect-uris';
import { insertClient, insertUser } from '../support/factories.ts';
import { authorizeInBrowser, authorizeUrl, obtainCode, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

/** RFC 8252 7.3: loopback IP redirect URIs match any port; everything else stays exact. */

test('matching: exact, or a loopback IP literal with any port and otherwise the same text', (t) => {
  const cases: Array<[string[], string, boolean]> = [
    [['https://app.example/cb'], 'https://app.example/cb', true],
    [['https://app.example/cb'], 'https://app.example/cb/', false],
    [['https://app.example:8443/cb'], 'https://app.example:9443/cb', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:53111/cb', true],
    [['http://127.0.0.1:8080/cb'], 'http://127.0.0.1:53111/cb', true],
    [['http://127.0.0.1:8080/cb'], 'http://127.0.0.1/cb', true],
    [['http://[::1]/cb'], 'http://[::1]:61000/cb', true],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:53111/cb?x=1', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:53111/other', false],
    [['http://127.0.0.1/cb'], 'http://[::1]:53111/cb', false],
    [['http://localhost/cb'], 'http://localhost:53111/cb', false],
    [['http://127.0.0.1/cb'], 'https://127.0.0.1:53111/cb', false],
    [['http://127.0.0.1/cb'], 'http://user@127.0.0.1:53111/cb', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:53111/CB', false],
  ];
  for (const [registered, requested, allowed] of cases) {
    t.is(redirectUriAllowed(registered, requested), allowed, `${registered} <- ${requested}`);
  }
});

const world = setUpWorld(test);

test('a native app registered on http://127.0.0.1/callback signs in on whatever port it got', async (t) => {
  const user = await insertUser(world.knex());
  const { client } = await insertClient(world.knex(), {
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['PROFILE_READ'],
  });
  const redirectUri = 'http://127.0.0.1:53117/callback';
  const pkce = pkcePair();
  const { code, redirect } = await obtainCode(
    world.system.url,
    {
      client_id: client.id,
      redirect_uri: redirectUri,
      state: randomBytes(8).toString('hex'),
      scope: 'PROFILE_READ',
      code_challenge: pkce.challenge,
    },
    { user },
  );
  t.is(`${redirect.origin}${redirect.pathname}`, redirectUri);
  const tokens = await tokenRequest(world.system.url, {
    client_id: client.id,
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: pkce.verifier,
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));

  // Another path, or localhost with another port, is still refused on the page.
  for (const other of ['http://127.0.0.1:53117/elsewhere', 'http://localhost:53117/callback']) {
    const { outcome } = await authorizeInBrowser(
      world.system.url,
      authorizeUrl(world.system.url, {
        client_id: client.id,
        redirect_uri: other,
        state: 's',
        scope: 'PROFILE_READ',
        code_challenge: pkce.challenge,
      }),
      { user },
    );
    t.is(outcome.kind, 'page', other);
    if (outcome.kind === 'page') t.is(outcome.status, 400);
  }
});
