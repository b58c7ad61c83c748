import { updateOAuthClient } from '@sched/db/queries/oauth-clients';
import type { AccessTokenPayload } from '@sched/db/token-store/types';
import test from 'ava';
import {
  authorizeInBrowser,
  authorizeUrl,
  clientCredentials,
  FlowBrowser,
  obtainCode,
  tokenRequest,
} from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertClient, type TestClient } from '../support/factories.ts';

// Legacy clients (no scopes, or only READ_BOOKING / READ_PROFILE): scope optional, the
// enabled-scope check skipped, tokens marked `extra.legacy`, and the mark kept for the life of an
// authorization even after the client migrates to scopes.

const { system, store, user } = setUpWorld(test);

async function exchange(client: TestClient, params: Record<string, string>, browser?: FlowBrowser) {
  const { code } = await obtainCode(
    system.url,
    { client_id: client.client.id, redirect_uri: client.redirectUri, state: 's', ...params },
    { user, ...(browser ? { browser } : {}) },
  );
  const response = await tokenRequest(system.url, {
    ...clientCredentials(client),
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
  });
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  return response.body as { access_token: string; refresh_token: string; scope: string };
}

const record = (token: string) => store().find<AccessTokenPayload>('AccessToken', token);

test('a legacy client without scopes authorizes without a scope; its token has no scope and is marked legacy', async (t) => {
  const legacy = await insertClient(system.stores.db.knex, { scopes: [] });
  t.true(legacy.client.isLegacy);
  const { outcome, browser, consentShown } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, { client_id: legacy.client.id, redirect_uri: legacy.redirectUri, state: 's' }),
    { user },
  );
  t.true(consentShown);
  t.is(outcome.kind, 'redirect');
  const code = outcome.url.searchParams.get('code')!;
  const response = await tokenRequest(system.url, {
    ...clientCredentials(legacy),
    grant_type: 'authorization_code',
    code,
    redirect_uri: legacy.redirectUri,
  });
  t.is(response.status, 200);
  t.is(response.body.scope, '');
  const stored = await record(String(response.body.access_token));
  t.is(stored?.scope, '');
  t.deepEqual(stored?.extra, { legacy: true });

  // Remembered: the same request again goes straight back to the client.
  const again = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, { client_id: legacy.client.id, redirect_uri: legacy.redirectUri, state: 's2' }),
    { browser },
  );
  t.false(again.consentShown);
  t.is(again.outcome.kind, 'redirect');

  const refreshed = await tokenRequest(system.url, {
    ...clientCredentials(legacy),
    grant_type: 'refresh_token',
    refresh_token: String(response.body.refresh_token),
  });
  t.is(refreshed.body.scope, '');
  t.deepEqual((await record(String(refreshed.body.access_token)))?.extra, { legacy: true });
});

test('the consent page of a legacy client warns that access is not limited', async (t) => {
  const legacy = await insertClient(system.stores.db.knex, {
    scopes: ['READ_BOOKING'],
    name: 'Old Integration',
  });
  const browser = new FlowBrowser(system.url);
  const signIn = await browser.open(
    authorizeUrl(system.url, {
      client_id: legacy.client.id,
      redirect_uri: legacy.redirectUri,
      scope: 'READ_BOOKING',
    }),
  );
  t.is(signIn.kind, 'page');
  if (signIn.kind !== 'page') return;
  const consent = await browser.submit(signIn, '/signin', { email: user.email, password: user.password });
  t.is(consent.kind, 'page');
  if (consent.kind !== 'page') return;
  t.regex(consent.html, /Old Integration wants to access your account/);
  t.regex(consent.html, /Read your bookings/);
  t.regex(consent.html, /not limited to the items above/);
});

test('a legacy client may ask for scopes it has not registered yet; the token carries them and is legacy', async (t) => {
  const legacy = await insertClient(system.stores.db.knex, { scopes: ['READ_PROFILE'] });
  const tokens = await exchange(legacy, { scope: 'BOOKING_READ READ_PROFILE' });
  t.is(tokens.scope, 'BOOKING_READ READ_PROFILE');
  t.deepEqual((await record(tokens.access_token))?.extra, { legacy: true });
});

test('after migrating to scopes: old grants stay legacy through refresh, new authorizations are scoped', async (t) => {
  const legacy = await insertClient(system.stores.db.knex, { scopes: ['READ_BOOKING'] });
  const before = await exchange(legacy, { scope: 'READ_BOOKING' });

  const migrated = await updateOAuthClient(system.stores.db.knex, store(), legacy.client.id, {
    scopes: ['BOOKING_READ', 'PROFILE_READ'],
  });
  t.false(migrated!.isLegacy);

  const refreshed = await tokenRequest(system.url, {
    ...clientCredentials(legacy),
    grant_type: 'refresh_token',
    refresh_token: before.refresh_token,
  });
  t.is(refreshed.status, 200);
  t.deepEqual((await record(String(refreshed.body.access_token)))?.extra, { legacy: true }, 'still legacy');

  const missingScope = await fetch(
    authorizeUrl(system.url, { client_id: legacy.client.id, redirect_uri: legacy.redirectUri }),
    { redirect: 'manual' },
  );
  t.is(missingScope.status, 400, 'scope is now required');
  t.true((await missingScope.text()).includes('scope parameter is required for this OAuth client'));

  const exceeding = await fetch(
    authorizeUrl(system.url, {
      client_id: legacy.client.id,
      redirect_uri: legacy.redirectUri,
      scope: 'BOOKING_WRITE',
    }),
    { redirect: 'manual' },
  );
  t.is(new URL(exceeding.headers.get('location')!).searchParams.get('error'), 'invalid_request');

  const after = await exchange(legacy, { scope: 'BOOKING_READ' });
  t.deepEqual((await record(after.access_token))?.extra, { legacy: false });
});
