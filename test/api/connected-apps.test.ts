import { endEverythingOf } from '@sched/accounts/end-everything';
import { createPasswordResetLink, resetPassword } from '@sched/accounts/password-reset';
import type { Runtime } from '@sched/runtime/runtime';
import test, { type ExecutionContext } from 'ava';
import { insertApiKey, insertUser, type TestClient, type TestUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import {
  authorizeInBrowser,
  authorizeUrl,
  clientCredentials,
  type FlowBrowser,
  type issueTokens,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { type SecondApi, startSecondApi } from './helpers/second-api.ts';

/**
 * Connected apps and instant revocation: tokens come from real authorization-code flows; every
 * revocation is checked on the very next request in this API process and in a second one (its own
 * caches and connections on the same database and token store), and at the token endpoint (the
 * refresh token is refused).
 */

const world = setUpWorld(test, {
  clients: {
    calendar: {
      name: 'Calendar Sync',
      logo: 'https://calendar.example.com/logo.png',
      websiteUrl: 'https://calendar.example.com',
      scopes: ['PROFILE_READ', 'BOOKING_READ'],
    },
    notes: { name: 'Notes', scopes: ['PROFILE_READ'] },
    leaky: { name: 'Leaky', scopes: ['PROFILE_READ'] },
    doomed: { name: 'Doomed', scopes: ['PROFILE_READ'] },
  },
});
const { system, call: one, knex } = world;
let second: SecondApi;
const two = apiClient(() => second.url);

test.before(async () => {
  second = await startSecondApi(system);
});
test.after.always(async () => {
  await second?.close();
});

const NOT_FOR_TOKENS = 'insufficient_scope: this endpoint is not available for third-party OAuth tokens';

type Tokens = Awaited<ReturnType<typeof issueTokens>>;

/** A signed-in browser's authorization of `client`: whether consent was asked, and the tokens. */
async function authorize(client: TestClient, user: TestUser, scopes: string[], browser?: FlowBrowser) {
  const pkce = pkcePair();
  const url = authorizeUrl(system.url, {
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    state: 'xyz',
    scope: scopes.join(' '),
    code_challenge: pkce.challenge,
  });
  const flow = await authorizeInBrowser(system.url, url, { user, ...(browser ? { browser } : {}) });
  if (flow.outcome.kind !== 'redirect') throw new Error(`the flow stopped at a page: ${flow.outcome.html}`);
  const code = flow.outcome.url.searchParams.get('code')!;
  const exchanged = await tokenRequest(system.url, {
    ...clientCredentials(client),
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: pkce.verifier,
  });
  if (exchanged.status !== 200) throw new Error(JSON.stringify(exchanged.body));
  return {
    tokens: exchanged.body as unknown as Tokens,
    consentShown: flow.consentShown,
    browser: flow.browser,
  };
}

const refresh = (client: TestClient, token: string) =>
  tokenRequest(system.url, {
    ...clientCredentials(client),
    grant_type: 'refresh_token',
    refresh_token: token,
  });

/** GET /v2/me with the token through both processes. */
async function meInBoth(t: ExecutionContext, token: string, status: number, label: string) {
  for (const [name, call] of [
    ['first', one],
    ['second', two],
  ] as const) {
    const response = await call('GET', '/v2/me', { token });
    t.is(response.status, status, `${label} (${name} process): ${JSON.stringify(response.body)}`);
  }
}

test.serial(
  'the list after a real authorization: name, logo, website, scopes, granted and last used',
  async (t) => {
    const user = await insertUser(knex());
    const before = Date.now() - 2000;
    await authorize(world.clients.calendar, user, ['PROFILE_READ']);
    const after = Date.now() + 2000;
    const listed = await one('GET', '/v2/me/connected-apps', { token: user.apiKey });
    t.is(listed.status, 200);
    t.is(listed.body.data.length, 1);
    const [app] = listed.body.data;
    t.deepEqual(Object.keys(app).sort(), [
      'clientId',
      'grantedAt',
      'lastUsedAt',
      'logo',
      'name',
      'scopes',
      'websiteUrl',
    ]);
    t.like(app, {
      clientId: world.clients.calendar.client.id,
      name: 'Calendar Sync',
      logo: 'https://calendar.example.com/logo.png',
      websiteUrl: 'https://calendar.example.com',
      scopes: ['PROFILE_READ'],
    });
    for (const field of ['grantedAt', 'lastUsedAt']) {
      const time = Date.parse(app[field]);
      t.true(time >= before && time <= after, `${field} ${app[field]}`);
    }
    const other = await insertUser(knex());
    t.deepEqual(
      (await one('GET', '/v2/me/connected-apps', { token: other.apiKey })).body.data,
      [],
      'per user',
    );
  },
);

test.serial(
  'DELETE: the tokens stop working on the next request in both processes, and consent is asked again',
  async (t) => {
    const user = await insertUser(knex());
    const bystander = await insertUser(knex());
    const client = world.clients.notes;
    const first = await authorize(client, user, ['PROFILE_READ']);
    t.true(first.consentShown);
    // Remembered consent: a second authorization in the same browser goes straight through.
    const again = await authorize(client, user, ['PROFILE_READ'], first.browser);
    t.false(again.consentShown, 'remembered consent skips the page before the app is disconnected');
    const theirs = await authorize(client, bystander, ['PROFILE_READ']);
    for (const tokens of [first.tokens, again.tokens]) await meInBoth(t, tokens.access_token, 200, 'before');

    const removed = await two('DELETE', `/v2/me/connected-apps/${client.client.id}`, { token: user.apiKey });
    t.is(removed.status, 204);
    t.falsy(removed.body);

    for (const tokens of [first.tokens, again.tokens]) {
      await meInBoth(t, tokens.access_token, 401, 'after');
      const refused = await refresh(client, tokens.refresh_token);
      t.is(refused.status, 400);
      t.deepEqual(refused.body, { error: 'invalid_grant', error_description: 'invalid_refresh_token' });
    }
    await meInBoth(t, theirs.tokens.access_token, 200, "another user's tokens of the same app");
    t.is((await refresh(client, theirs.tokens.refresh_token)).status, 200);

    const listed = await one('GET', '/v2/me/connected-apps', { token: user.apiKey });
    t.deepEqual(listed.body.data, []);
    const reauthorized = await authorize(client, user, ['PROFILE_READ'], first.browser);
    t.true(reauthorized.consentShown, 'the next authorization asks for consent again');
    await meInBoth(t, reauthorized.tokens.access_token, 200, 'a new authorization works');
    t.is(
      (await one('DELETE', `/v2/me/connected-apps/${client.client.id}`, { token: user.apiKey })).status,
      204,
    );
  },
);

test.serial('DELETE of an app not connected, or unknown, is 404', async (t) => {
  const user = await insertUser(knex());
  for (const clientId of [world.clients.notes.client.id, 'no-such-client', 'x'.repeat(300)]) {
    const response = await one('DELETE', `/v2/me/connected-apps/${encodeURIComponent(clientId)}`, {
      token: user.apiKey,
    });
    t.is(response.status, clientId.length > 200 ? 400 : 404, clientId);
    if (response.status === 404) t.is(response.body.error.message, 'Connected app not found');
  }
});

test.serial('neither endpoint is reachable with an OAuth token', async (t) => {
  const user = await insertUser(knex());
  const { tokens } = await authorize(world.clients.calendar, user, ['PROFILE_READ', 'BOOKING_READ']);
  const clientId = world.clients.calendar.client.id;
  for (const [method, path] of [
    ['GET', '/v2/me/connected-apps'],
    ['DELETE', `/v2/me/connected-apps/${clientId}`],
    ['POST', `/v2/oauth-clients/${clientId}/revoke-tokens`],
  ] as const) {
    const response = await one(method, path, { token: tokens.access_token });
    t.is(response.status, 403, path);
    t.is(response.body.error.message, NOT_FOR_TOKENS, path);
  }
  await meInBoth(t, tokens.access_token, 200, 'the token was not revoked by its own attempt');
});

test.serial(
  'revoke-tokens: the owner and a service administrator end every token of the client',
  async (t) => {
    const client = world.clients.leaky;
    const owner = { apiKey: await insertApiKey(knex(), client.client.ownerUserId!) };
    const [a, b] = [await insertUser(knex()), await insertUser(knex())];
    const issued = [
      (await authorize(client, a, ['PROFILE_READ'])).tokens,
      (await authorize(client, b, ['PROFILE_READ'])).tokens,
    ];
    const elsewhere = (await authorize(world.clients.calendar, a, ['PROFILE_READ'])).tokens;
    for (const tokens of issued) await meInBoth(t, tokens.access_token, 200, 'before');

    const path = `/v2/oauth-clients/${client.client.id}/revoke-tokens`;
    const stranger = await insertUser(knex());
    const refused = await one('POST', path, { token: stranger.apiKey });
    t.is(refused.status, 404, 'a stranger cannot see the client');
    for (const tokens of issued) await meInBoth(t, tokens.access_token, 200, 'after the refusal');

    const revoked = await two('POST', path, { token: owner.apiKey });
    t.is(revoked.status, 200);
    t.deepEqual(revoked.body.data, { revoked: 4 }, 'two users: an access and a refresh token each');
    for (const tokens of issued) {
      await meInBoth(t, tokens.access_token, 401, 'after');
      t.is((await refresh(client, tokens.refresh_token)).body.error_description, 'invalid_refresh_token');
    }
    await meInBoth(t, elsewhere.access_token, 200, "the user's token of another client");

    const byAdmin = await one('POST', path, { token: world.admin.apiKey });
    t.deepEqual(byAdmin.body.data, { revoked: 0 }, 'a service administrator may; nothing is left');
    // Consent stays: the users re-authorize without being asked.
    t.false((await authorize(client, a, ['PROFILE_READ'])).consentShown);
    const audit = await knex()('audit_log')
      .where({ action: 'oauth_client.tokens_revoked', subject_id: client.client.id })
      .count({ n: '*' });
    t.is(Number(audit[0]!['n']), 2);
  },
);

test.serial('deleting a client deletes its grants and tokens from the token store', async (t) => {
  const client = world.clients.doomed;
  const owner = { apiKey: await insertApiKey(knex(), client.client.ownerUserId!) };
  const user = await insertUser(knex());
  const { tokens } = await authorize(client, user, ['PROFILE_READ']);
  const store = world.store();
  t.truthy(await store.find('RefreshToken', tokens.refresh_token));
  const deleted = await one('DELETE', `/v2/oauth-clients/${client.client.id}`, { token: owner.apiKey });
  t.is(deleted.status, 200);
  t.is(await store.find('AccessToken', tokens.access_token), undefined);
  t.is(await store.find('RefreshToken', tokens.refresh_token), undefined);
  t.deepEqual(await store.listGrantsOfUser(String(user.id)), []);
  await meInBoth(t, tokens.access_token, 401, 'after the deletion');
});

test.serial('endEverythingOf: tokens of every client, API keys, sessions and consents', async (t) => {
  const user = await insertUser(knex());
  const first = await authorize(world.clients.calendar, user, ['PROFILE_READ']);
  const second = await authorize(world.clients.notes, user, ['PROFILE_READ'], first.browser);
  const bystander = await insertUser(knex());
  const theirs = await authorize(world.clients.notes, bystander, ['PROFILE_READ']);
  await meInBoth(t, user.apiKey, 200, 'the API key before');

  const deps = { stores: system.stores } as unknown as Runtime;
  const ended = await endEverythingOf(deps, user.id);
  t.deepEqual(ended, { tokens: 4, apiKeys: 1, sessions: 1, consents: 2 });

  for (const { tokens } of [first, second]) await meInBoth(t, tokens.access_token, 401, 'tokens after');
  await meInBoth(t, user.apiKey, 401, 'the API key after');
  await meInBoth(t, theirs.tokens.access_token, 200, "another user's token");
  t.is((await refresh(world.clients.notes, second.tokens.refresh_token)).status, 400);
  // The browser session is gone: the same browser is asked to sign in, then to consent again.
  const url = authorizeUrl(system.url, {
    client_id: world.clients.notes.client.id,
    redirect_uri: world.clients.notes.redirectUri,
    state: 's',
    scope: 'PROFILE_READ',
    code_challenge: pkcePair().challenge,
  });
  const flow = await authorizeInBrowser(system.url, url, { browser: first.browser });
  t.is(flow.outcome.kind, 'page', 'stopped at the sign-in page (no user given)');
  t.regex(flow.outcome.kind === 'page' ? flow.outcome.html : '', /\/signin/);
  const signedIn = await authorize(world.clients.notes, user, ['PROFILE_READ'], first.browser);
  t.true(signedIn.consentShown, 'consent is asked again');
});

test.serial(
  'a password reset ends every token, key and consent of the account at once, in both processes',
  async (t) => {
    const client = world.clients.notes;
    const user = await insertUser(knex());
    const { tokens, consentShown } = await authorize(client, user, ['PROFILE_READ']);
    t.true(consentShown);
    await meInBoth(t, tokens.access_token, 200, 'token before');
    await meInBoth(t, user.apiKey, 200, 'API key before');

    const link = await createPasswordResetLink(knex(), system.url, user.id);
    const token = new URL(link).searchParams.get('token')!;
    const deps = { stores: system.stores, config: system.config } as unknown as Parameters<
      typeof resetPassword
    >[0];
    t.truthy(await resetPassword(deps, token, 'a brand new passphrase'));

    await meInBoth(t, tokens.access_token, 401, 'token after the reset');
    await meInBoth(t, user.apiKey, 401, 'API key after the reset');
    t.is((await refresh(client, tokens.refresh_token)).body.error, 'invalid_grant');
    const again = await authorize(client, { ...user, password: 'a brand new passphrase' }, ['PROFILE_READ']);
    t.true(again.consentShown, 'the next authorization asks for consent again');
  },
);

test.serial('deleting the account ends its tokens and keys at once, in both processes', async (t) => {
  const client = world.clients.notes;
  const user = await insertUser(knex());
  const { tokens } = await authorize(client, user, ['PROFILE_READ']);
  await meInBoth(t, tokens.access_token, 200, 'token before');
  const deleted = await two('DELETE', '/v2/me', { token: user.apiKey });
  t.is(deleted.status, 204);
  await meInBoth(t, tokens.access_token, 401, 'token after the deletion');
  await meInBoth(t, user.apiKey, 401, 'API key after the deletion');
  t.is((await refresh(client, tokens.refresh_token)).body.error, 'invalid_grant');
});
