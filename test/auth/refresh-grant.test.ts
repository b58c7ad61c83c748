import { ownRefreshGrant } from '@sched/auth/endpoints/refresh-grant';
import type { RecordWithVersions, TokenPayload } from '@sched/db/token-store/types';
import test from 'ava';
import Provider from 'oidc-provider';
import type { TestClient } from '../support/factories.ts';
import { clientCredentials, FlowBrowser, issueTokens } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Our own refresh grant (services/auth/src/endpoints/refresh-grant.ts) issues what oidc-provider's
// issues: for each kind of token it is compared field by field with oidc-provider's own run of the
// grant (`ownRefreshGrant.enabled = false`), records and answers. Everything out of the ordinary
// stays with oidc-provider. Serial: the switch is shared by the file's requests.

const {
  system,
  store,
  user,
  clients: { app, spa, legacy, oidc },
} = setUpWorld(test, {
  clients: {
    app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'] },
    legacy: { scopes: ['READ_BOOKING'] },
    oidc: { scopes: ['openid', 'PROFILE_READ'] },
  },
});
let browser: FlowBrowser;

/** oidc-provider's model events of this process: its grant saves its tokens through its models. */
const events: string[] = [];
test.before(async () => {
  browser = new FlowBrowser(system.url);
  const emit = Provider.prototype.emit;
  Provider.prototype.emit = function recordedEmit(this: Provider, name: string | symbol, ...args: unknown[]) {
    if (typeof name === 'string') events.push(name);
    return emit.call(this, name, ...args);
  };
});
test.afterEach.always(() => {
  ownRefreshGrant.enabled = true;
});

/** A fresh authorization of `client`: its token answer. */
const authorize = (client: TestClient, scope: string, resource?: string) =>
  issueTokens(system.url, client, user, scope.split(' '), browser, resource ? { resource } : {});

/** A refresh by our grant or by oidc-provider's: the answer, the stored records, the events seen. */
async function refreshBy(own: boolean, client: TestClient, refreshToken: string) {
  ownRefreshGrant.enabled = own;
  events.length = 0;
  // From a browser's page (Origin): the CORS headers are part of the answer compared.
  const response = await fetch(new URL('/v2/auth/oauth2/token', system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://spa.example.com' },
    body: new URLSearchParams({
      ...clientCredentials(client),
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    }),
  });
  const answer = { status: response.status, body: (await response.json()) as Record<string, unknown> };
  ownRefreshGrant.enabled = true;
  const body = answer.body;
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => !PER_RESPONSE_HEADERS.has(name)),
  );
  const records =
    answer.status === 200
      ? {
          refresh: (await store().find<TokenPayload>('RefreshToken', String(body.refresh_token)))!,
          access: (await store().find<TokenPayload>('AccessToken', String(body.access_token)))!,
          used: (await store().find<TokenPayload>('RefreshToken', refreshToken))!,
        }
      : undefined;
  return { status: answer.status, body, headers, records, events: [...events] };
}

/** Headers whose values differ from one response to the next. */
const PER_RESPONSE_HEADERS = new Set([
  'date',
  'content-length',
  'x-request-id',
  'ratelimit-remaining',
  'ratelimit-reset',
]);

/** What must differ between two grants' tokens (ids and times); everything else must be equal. */
const PER_TOKEN = new Set(['jti', 'iat', 'exp', 'iiat', 'grantId', 'sessionUid', 'sid', 'consumed']);

function comparable(record: TokenPayload) {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) kept[key] = PER_TOKEN.has(key) ? typeof value : value;
  return { ...kept, lifetime: Number(record.exp) - Number(record.iat) };
}

const cases: Array<[string, () => TestClient, string, string?]> = [
  ['a confidential client', () => app, 'PROFILE_READ BOOKING_READ'],
  ['a public client', () => spa, 'PROFILE_READ'],
  ['a legacy client (extra.legacy)', () => legacy, 'READ_BOOKING'],
  ['a token for the API (RFC 8707 resource)', () => app, 'PROFILE_READ', 'api'],
  ['a token for the MCP server', () => app, 'PROFILE_READ BOOKING_READ', 'mcp'],
];

for (const [label, client, scope, resourceName] of cases) {
  test.serial(`${label}: our grant stores and answers what oidc-provider's does`, async (t) => {
    const resource =
      resourceName === 'api' ? system.url : resourceName === 'mcp' ? `${system.url}/mcp` : undefined;
    const first = await authorize(client(), scope, resource);
    const second = await authorize(client(), scope, resource);
    // Twice each, so that a rotated token's rotation count is compared too.
    const theirs1 = await refreshBy(false, client(), first.refresh_token);
    const ours1 = await refreshBy(true, client(), second.refresh_token);
    const theirs = await refreshBy(false, client(), String(theirs1.body.refresh_token));
    const ours = await refreshBy(true, client(), String(ours1.body.refresh_token));
    for (const run of [theirs1, ours1, theirs, ours]) t.is(run.status, 200, JSON.stringify(run.body));

    t.true(theirs.events.includes('refresh_token.saved'), 'oidc-provider ran its grant');
    t.false(ours.events.includes('refresh_token.saved'), 'our grant ran');

    t.deepEqual(comparable(ours.records!.refresh), comparable(theirs.records!.refresh));
    t.deepEqual(comparable(ours.records!.access), comparable(theirs.records!.access));
    t.is(ours.records!.refresh.rotations, 2);
    // The chain's first issue time is kept through rotations, and the used token is marked consumed.
    t.is(ours.records!.refresh.iiat, ours1.records!.refresh.iiat);
    t.is(typeof ours.records!.used.consumed, 'number');
    t.is(ours.records!.refresh.grantId, ours1.records!.refresh.grantId);
    t.is(ours.records!.access.grantId, ours.records!.refresh.grantId);

    const answerShape = (body: Record<string, unknown>) => ({
      ...body,
      access_token: typeof body.access_token,
      refresh_token: typeof body.refresh_token,
    });
    t.deepEqual(answerShape(ours.body), answerShape(theirs.body));
    t.deepEqual(ours.headers, theirs.headers);
    t.is(ours.headers['access-control-allow-origin'], '*');
    t.is(ours.headers['cache-control'], 'no-store');

    // Our tokens work: the API reads the access token, the refresh token refreshes again.
    const me = await fetch(`${system.url}/v2/me`, {
      headers: { authorization: `Bearer ${ours.body.access_token}` },
    });
    t.is(me.status, resourceName === 'mcp' ? 401 : 200);
    const again = await refreshBy(true, client(), String(ours.body.refresh_token));
    t.is(again.status, 200);
  });
}

test.serial("a refresh with openid granted is oidc-provider's (it signs an ID token)", async (t) => {
  const tokens = await authorize(oidc, 'openid PROFILE_READ');
  const run = await refreshBy(true, oidc, tokens.refresh_token);
  t.is(run.status, 200);
  t.is(typeof run.body.id_token, 'string');
  t.true(run.events.includes('refresh_token.saved'));
});

test.serial("a used refresh token is oidc-provider's: reuse revokes the grant as before", async (t) => {
  const tokens = await authorize(app, 'PROFILE_READ');
  const first = await refreshBy(true, app, tokens.refresh_token);
  t.is(first.status, 200);
  // Within the retry window the same client gets the kept answer; a replay by the provider's
  // detection afterwards is covered by test/auth/codes-and-refresh.test.ts (window off).
  const replay = await refreshBy(true, app, tokens.refresh_token);
  t.is(replay.status, 200);
  t.is(replay.body.access_token, first.body.access_token);
});

test.serial("another client's refresh token is refused, and nothing is issued", async (t) => {
  const tokens = await authorize(app, 'PROFILE_READ');
  const run = await refreshBy(true, spa, tokens.refresh_token);
  t.is(run.status, 400);
  t.is(run.body.error, 'invalid_grant');
  t.is(
    typeof (await store().find<TokenPayload>('RefreshToken', tokens.refresh_token))?.consumed,
    'undefined',
  );
});

test.serial("a revoked grant's refresh token is refused", async (t) => {
  const tokens = await authorize(app, 'PROFILE_READ');
  const record = await store().find<TokenPayload>('RefreshToken', tokens.refresh_token);
  await store().revokeByGrantId(String(record!.grantId));
  const run = await refreshBy(true, app, tokens.refresh_token);
  t.is(run.status, 400);
  t.is(run.body.error, 'invalid_grant');
});

test.serial('our grant reads the store once before it settles: no second read of the client', async (t) => {
  const tokens = await authorize(app, 'PROFILE_READ');
  // The first refresh of a grant reads the grant (then kept by the process); the second is counted.
  const first = await refreshBy(true, app, tokens.refresh_token);
  const reads: string[] = [];
  const tokenStore = store();
  const { readVersions, find, findWithVersions } = tokenStore;
  tokenStore.readVersions = (keys) => {
    reads.push(`readVersions ${keys.join(' ')}`);
    return readVersions.call(tokenStore, keys);
  };
  tokenStore.find = <P extends TokenPayload>(model: string, id: string) => {
    reads.push(`find ${model}`);
    return find.call(tokenStore, model, id) as Promise<P | undefined>;
  };
  tokenStore.findWithVersions = <P extends TokenPayload>(
    model: string,
    id: string,
    keys: readonly string[],
  ) => {
    reads.push(`findWithVersions ${model}`);
    return findWithVersions.call(tokenStore, model, id, keys) as Promise<RecordWithVersions<P>>;
  };
  try {
    const second = await refreshBy(true, app, String(first.body.refresh_token));
    t.is(second.status, 200);
  } finally {
    Object.assign(tokenStore, { readVersions, find, findWithVersions });
  }
  // Before the settle step: the refresh token with the client's version, nothing else. (After the
  // answer the test itself reads the three records.)
  t.deepEqual(reads.slice(0, 1), ['findWithVersions RefreshToken']);
  t.false(
    reads.slice(0, -3).some((read) => read.startsWith('readVersions')),
    reads.join(', '),
  );
});
