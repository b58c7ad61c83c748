import { disableAccount, enableAccount } from '@sched/accounts/disable';
import { findAccount } from '@sched/auth/provider/account';
import { setUserDisabled } from '@sched/db/queries/users';
import test from 'ava';
import { insertApiKey, insertUser } from '../support/factories.ts';
import { beforeNextSessionSave, createTestAccessToken } from '../support/tokens.ts';
import { FlowBrowser } from '../support/oauth.ts';
import { page } from '../settings/helpers.ts';
import {
  authorizeInBrowser,
  authorizeUrl,
  issueTokens,
  pkcePair,
  tokenRequest,
  clientCredentials,
} from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { signInToSettings } from './accounts.ts';

// A disabled account cannot sign in and its tokens and keys stop at once
// (disableAccount in @sched/accounts, shared by the CLI's disable-user and the admin console).
// Every sign-in form answers as for a wrong password; the API refuses the account's API keys and
// access tokens on the very next request (the caches are tagged with user:<id>, which the disable
// bumps), even a key or token that survived; its refresh tokens get invalid_grant. Enabling again
// lets it sign in; what was ended stays ended.

const world = setUpWorld(test, { clients: { app: {} } });
const { system, call, knex } = world;

const WRONG_PASSWORD = 'Incorrect email or password.';

async function signedIn(email: string, password: string) {
  const { landed } = await signInToSettings(world, email, password);
  return { status: landed.status, refused: landed.html.includes(WRONG_PASSWORD) };
}

/** The sign-in step of an authorization: whether it let the user through to consent or the client. */
async function authorizationSignIn(email: string, password: string) {
  const client = world.clients.app;
  const { outcome } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      scope: 'PROFILE_READ',
      state: 'state-1',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
    { user: { email, password } },
  );
  return outcome.kind === 'page' && outcome.html.includes(WRONG_PASSWORD) ? 'refused' : 'through';
}

const me = (token: string) => call('GET', '/v2/me', { token });

test.serial(
  'disable: sign-in refused, API key and access token 401 on the next request, refresh invalid_grant; enable lets sign-in again',
  async (t) => {
    const user = await insertUser(knex());
    const tokens = await issueTokens(system.url, world.clients.app, user, ['PROFILE_READ']);
    // Warm every cache of the API process: the second request is served from them.
    for (let round = 0; round < 2; round++) {
      t.is((await me(user.apiKey)).status, 200);
      t.is((await me(tokens.access_token)).status, 200);
    }
    t.is((await signedIn(user.email, user.password)).status, 200);

    const disabled = await disableAccount({ stores: system.stores }, user.id);
    t.truthy(disabled?.disabledAt);
    t.true(disabled!.changed);
    t.true(disabled!.ended.apiKeys >= 1);

    t.is((await me(user.apiKey)).status, 401, 'API key on the very next request');
    t.is((await me(tokens.access_token)).status, 401, 'access token on the very next request');
    const refreshed = await tokenRequest(system.url, {
      ...clientCredentials(world.clients.app),
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    t.is(refreshed.status, 400);
    t.is(refreshed.body.error, 'invalid_grant');

    const settings = await signedIn(user.email, user.password);
    t.is(settings.status, 401);
    t.true(settings.refused, 'the settings sign-in answers as for a wrong password');
    t.is(await authorizationSignIn(user.email, user.password), 'refused', 'the authorization sign-in too');

    // Disabling again is harmless.
    t.false((await disableAccount({ stores: system.stores }, user.id))!.changed);

    const enabled = await enableAccount({ stores: system.stores }, user.id);
    t.deepEqual(enabled, { userId: user.id, changed: true });
    t.is((await signedIn(user.email, user.password)).status, 200, 'signs in again');
    t.is(await authorizationSignIn(user.email, user.password), 'through');
    t.is((await me(user.apiKey)).status, 401, 'the old API key stays revoked');
    t.is((await me(tokens.access_token)).status, 401, 'the old access token stays dead');
    const fresh = await insertApiKey(knex(), user.id);
    t.is((await me(fresh)).status, 200, 'a new key works');
  },
);

test.serial(
  'a key or token of a disabled account that survived the disable is refused all the same',
  async (t) => {
    const user = await insertUser(knex());
    const token = await createTestAccessToken(system.stores, { userId: user.id, scopes: ['PROFILE_READ'] });
    t.is((await me(user.apiKey)).status, 200);
    t.is((await me(token)).status, 200);
    // Only the flag (no endEverythingOf): what the API itself does about a disabled account.
    await setUserDisabled(knex(), system.stores.tokenStore, user.id, true);
    t.is((await me(user.apiKey)).status, 401, 'surviving API key');
    t.is((await me(token)).status, 401, 'surviving access token');
    const later = await insertApiKey(knex(), user.id);
    t.is((await me(later)).status, 401, 'a key made after the disable');
    await setUserDisabled(knex(), system.stores.tokenStore, user.id, false);
    t.is((await me(user.apiKey)).status, 200, 'enabled again: the surviving key works');
  },
);

test.serial(
  'a sign-in that passed just before the disable does not get a session, though its session is saved after',
  async (t) => {
    const user = await insertUser(knex());
    const browser = new FlowBrowser(system.url);
    const form = page(await browser.open('/auth/settings/sign-in'));
    // The disable runs to its end (sessions ended) between that sign-in's check and its session.
    const hook = beforeNextSessionSave(system.stores.tokenStore, String(user.id), () =>
      disableAccount({ stores: system.stores }, user.id),
    );
    try {
      await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password });
    } finally {
      hook.restore();
    }
    t.true((await hook.ran)!.changed, 'the disable went through in between');
    const settings = page(await browser.open('/auth/settings'));
    t.is(settings.url.pathname, '/auth/settings/sign-in', 'the settings pages see no session');
    // Enabled again, the session stays ended: it was signed in before the disable.
    await enableAccount({ stores: system.stores }, user.id);
    t.is(page(await browser.open('/auth/settings')).url.pathname, '/auth/settings/sign-in');
  },
);

test.serial('unknown user: disableAccount and enableAccount answer null', async (t) => {
  t.is(await disableAccount({ stores: system.stores }, 987_654_321), null);
  t.is(await enableAccount({ stores: system.stores }, 987_654_321), null);
});

test.serial(
  "oidc-provider's account lookup reads the user in one query; disabled, managed and unknown accounts get nothing",
  async (t) => {
    const find = findAccount(knex());
    const [active, disabled, managed] = await Promise.all([
      insertUser(knex()),
      insertUser(knex()),
      insertUser(knex()),
    ]);
    await knex()('users').where({ id: disabled.id }).update({ disabled_at: knex().fn.now() });
    await knex()('users')
      .where({ id: managed.id })
      .update({ managed_by_client_id: world.clients.app.client.id });
    const unknown = disabled.id + 1_000_000;
    // Queries naming one of these users (the file's other tests run against the same database).
    const ids = new Set([active.id, disabled.id, managed.id, unknown]);
    const queries = new Map<number, number>();
    const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
      if (!query.sql.includes('"users"')) return;
      for (const value of query.bindings ?? [])
        if (ids.has(value as number)) queries.set(value as number, (queries.get(value as number) ?? 0) + 1);
    };
    // A lookup for a token (refresh, userinfo): not the browser session's, so the minute's memory applies.
    const token = {};
    knex().on('query', onQuery);
    try {
      t.is((await find(undefined, String(active.id), token))?.accountId, String(active.id));
      t.is(await find(undefined, String(disabled.id), token), undefined);
      t.is(await find(undefined, String(managed.id), token), undefined);
      t.is(await find(undefined, String(unknown), token), undefined);
      t.is((await find(undefined, String(active.id), token))?.accountId, String(active.id), 'remembered');
    } finally {
      knex().off('query', onQuery);
    }
    t.deepEqual(
      Object.fromEntries(queries),
      { [active.id]: 1, [disabled.id]: 1, [managed.id]: 1, [unknown]: 1 },
      'one query per uncached lookup, none for a remembered one',
    );
  },
);
