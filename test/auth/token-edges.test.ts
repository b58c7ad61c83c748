import test from 'ava';
import { clientCredentials, obtainCode, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Token endpoint edges the error table does not spell out: a parameter given twice (also in JSON),
// a code exchange without redirect_uri, several resources (RFC 8707), the Basic challenge on every
// 401 of a Basic request, and methods other than POST.

const {
  system,
  user,
  clients: { app, pending, rejected },
} = setUpWorld(test, {
  clients: {
    app: { scopes: ['PROFILE_READ'] },
    pending: { scopes: ['PROFILE_READ'], status: 'PENDING' },
    rejected: { scopes: ['PROFILE_READ'], status: 'REJECTED' },
  },
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const path = (endpoint: string) => `${system.url}/v2/auth/oauth2/${endpoint}`;
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function send(
  endpoint: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
) {
  const response = await fetch(path(endpoint), { method: 'POST', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

/** A fresh code of `app` (with PKCE) and the parameters that redeem it. */
async function freshCode() {
  const pkce = pkcePair();
  const { code } = await obtainCode(
    system.url,
    {
      client_id: app.client.id,
      redirect_uri: app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: pkce.challenge,
    },
    { user },
  );
  return {
    ...clientCredentials(app),
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: pkce.verifier,
  } as Record<string, string>;
}

test('a parameter repeated in a JSON body is refused like one repeated in a form', async (t) => {
  const redeem = await freshCode();
  const members = Object.entries(redeem).map(
    ([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`,
  );
  for (const repeated of [
    `"code":"another"`,
    // The same name, escaped otherwise, is the same name.
    `"\\u0063ode":"another"`,
    `"code":null`,
  ]) {
    const response = await send('token', {
      headers: { 'content-type': 'application/json' },
      body: `{${[...members, repeated].join(',')}}`,
    });
    t.is(response.status, 400, repeated);
    t.deepEqual(response.body, {
      error: 'invalid_request',
      error_description: 'Parameter code must not be provided twice',
    });
  }
  // Nothing was redeemed: the code still works once.
  t.is((await tokenRequest(system.url, redeem, { json: true })).status, 200);
});

test('a JSON value that looks like a member name is not one', async (t) => {
  const redeem = await freshCode();
  const response = await send('token', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...redeem, state: 'code', nonce: '"code":' }),
  });
  t.is(response.status, 200, JSON.stringify(response.body));
});

test('a code exchange without redirect_uri: 400 invalid_grant redirect_uri_mismatch, the code stays usable', async (t) => {
  const { redirect_uri: _left, ...withoutRedirect } = await freshCode();
  const response = await tokenRequest(system.url, withoutRedirect);
  t.is(response.status, 400);
  t.deepEqual(response.body, { error: 'invalid_grant', error_description: 'redirect_uri_mismatch' });
  t.is((await tokenRequest(system.url, { ...withoutRedirect, redirect_uri: app.redirectUri })).status, 200);
});

test('several resources in one token request: 400 invalid_target (RFC 8707), form and JSON', async (t) => {
  const redeem = await freshCode();
  const form = new URLSearchParams(redeem);
  form.append('resource', system.url);
  form.append('resource', `${system.url}/mcp`);
  const inForm = await send('token', { headers: FORM, body: form.toString() });
  t.is(inForm.status, 400);
  t.is(inForm.body.error, 'invalid_target');
  t.is(inForm.body.error_description, 'only one resource may be named in a token request');
  const inJson = await send('token', {
    headers: { 'content-type': 'application/json' },
    body: `${JSON.stringify({ ...redeem, resource: system.url }).slice(0, -1)},"resource":"${system.url}/mcp"}`,
  });
  t.is(inJson.status, 400);
  t.is(inJson.body.error, 'invalid_target');
  // Another parameter repeated is still the generic refusal.
  const twice = await send('token', { headers: FORM, body: `${new URLSearchParams(redeem)}&code=x` });
  t.is(twice.body.error, 'invalid_request');
});

test('401 unauthorized_client over HTTP Basic carries the Basic challenge; in the body it does not', async (t) => {
  for (const [client, description] of [
    [pending, 'client_not_approved'],
    [rejected, 'client_rejected'],
  ] as const) {
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }).toString();
    const overBasic = await send('token', {
      headers: { ...FORM, authorization: basic(client.client.id, client.secret!) },
      body,
    });
    t.is(overBasic.status, 401);
    t.deepEqual(overBasic.body, { error: 'unauthorized_client', error_description: description });
    t.is(overBasic.headers.get('www-authenticate'), `Basic realm="${system.url}"`);
    const inBody = await send('token', {
      headers: FORM,
      body: `${body}&${new URLSearchParams(clientCredentials(client))}`,
    });
    t.is(inBody.status, 401);
    t.is(inBody.body.error_description, description);
    t.is(inBody.headers.get('www-authenticate'), null);
  }
});

test('token and revocation endpoints take POST only: 405 with Allow, no-store', async (t) => {
  for (const endpoint of ['token', 'revoke', 'introspect']) {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await send(endpoint, { method });
      t.is(response.status, 405, `${method} ${endpoint}`);
      t.is(response.headers.get('allow'), 'POST');
      t.is(response.headers.get('cache-control'), 'no-store');
      t.deepEqual(response.body, { error: 'invalid_request', error_description: 'use POST' });
    }
  }
});
