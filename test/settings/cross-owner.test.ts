import { randomBytes } from 'node:crypto';
import { adminRoutes } from '@sched/auth/admin/routes';
import { CONSOLE_ADMIN_ONLY } from '@sched/auth/admin/guard';
import { calendarConnectRoutes } from '@sched/auth/calendars/routes';
import type { AuthDeps } from '@sched/auth/deps';
import { embedRoutes } from '@sched/auth/embed/routes';
import { pageRoutes } from '@sched/auth/interaction/routes';
import { settingsRoutes } from '@sched/auth/settings/routes';
import { CredentialsBox } from '@sched/calendars/credentials-box';
import { listConnectedApps } from '@sched/clients/connected-apps';
import { saveCalendarConnection } from '@sched/db/queries/calendar-connections';
import type Router from '@koa/router';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import {
  insertClient,
  insertMembership,
  insertOrganization,
  insertUser,
  type TestClient,
  type TestUser,
  uniqueTag,
} from '../support/factories.ts';
import { authorizeUrl, type FlowBrowser, formOf, issueTokens, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { CLIENTS, page, signedIn, text } from './helpers.ts';

/**
 * Broken object level authorization on the browser pages: user A owns objects (an OAuth client of
 * A's organization with a secret, an API key, a connected app, a calendar connection with a
 * calendar, a pending invitation, an authorization request in progress, shown-once secrets); user
 * B is signed in to the settings and asks for each of them. Driven by the routers' own route
 * tables (the same factories the app mounts), so a page route with a path id added later without
 * a case here fails the coverage test:
 *
 * 1. CASES: every settings / interaction / embed / calendar-connect route with a path id, as B on
 *    A's object and on an id that does not exist: the same status, Location and page (the ids
 *    themselves aside), nothing of A's in it (MARK is in the names of A's objects), and A's
 *    objects as they were after every request.
 * 2. The admin console and the review queue: every route, as B (not a service administrator):
 *    403 with the console's message, nothing changed.
 * 3. Ids in query strings and form fields (not in the route table, listed by hand): reveal ids,
 *    `?reconnect=`, calendar ids of the selection form, the owner organization of a new client.
 *
 * The tests run serially: the "unchanged" snapshots must not see another case's set-up.
 */

const world = setUpWorld(test, { clients: { app: { scopes: ['PROFILE_READ'] } } });
const knex = () => world.knex();

const MARK = `owned-by-a-${uniqueTag()}`;
const MISSING_NUMBER = '999999999';
const MISSING_CLIENT = `no-such-client-${uniqueTag()}`;
const MISSING_UID = randomBytes(16).toString('base64url');

interface Fixtures {
  a: TestUser;
  b: TestUser;
  orgId: number;
  inviterOrgId: number;
  aClient: TestClient;
  bClient: TestClient;
  secretId: string;
  keyId: string;
  connectionId: string;
  calendarId: string;
  invitationId: string;
  uid: string;
  aBrowser: FlowBrowser;
  bBrowser: FlowBrowser;
  /** B's CSRF token (bound to B, good for every settings form of B's). */
  bCsrf: string;
}

let f: Fixtures;

async function connectionOf(userId: number, name: string) {
  const saved = await saveCalendarConnection(knex(), {
    userId,
    provider: 'caldav',
    account: `${name}-${uniqueTag()}`,
    credentialsSealed: new CredentialsBox(world.system.config.encryptionKey).seal({
      serverUrl: `https://dav.example.com/${name}/`,
      username: name,
      password: 'pw',
    }),
    calendars: [
      {
        externalId: `https://dav.example.com/${name}/work/`,
        name: `Work ${name}`,
        readOnly: false,
        primary: true,
      },
    ],
  });
  const calendar = await knex()('connected_calendars').where({ connection_id: saved.id }).first();
  return { connectionId: String(saved.id), calendarId: String(calendar.id) };
}

test.serial.before(async () => {
  const db = knex();
  const a = await insertUser(db, { name: `A ${MARK}` });
  const b = await insertUser(db, { name: 'B' });
  const orgId = await insertOrganization(db, { name: `Org ${MARK}` });
  await insertMembership(db, { userId: a.id, organizationId: orgId, role: 'OWNER' });
  const inviterOrgId = await insertOrganization(db, { name: `Inviter ${MARK}` });
  const invitationId = await insertMembership(db, {
    userId: a.id,
    organizationId: inviterOrgId,
    role: 'MEMBER',
    accepted: false,
  });
  const aClient = await insertClient(db, {
    ownerUserId: a.id,
    organizationId: orgId,
    name: `App ${MARK}`,
    websiteUrl: `https://${MARK}.example.com`,
  });
  const bClient = await insertClient(db, { ownerUserId: b.id, name: 'B app' });
  const secret = await db('oauth_client_secrets').where({ client_id: aClient.client.id }).first();
  const key = await db('api_keys').where({ user_id: a.id }).first();
  const { connectionId, calendarId } = await connectionOf(a.id, MARK);
  // A's connected app: a consent and tokens of A for the world's client.
  await issueTokens(world.system.url, world.clients.app, a);
  if ((await listConnectedApps({ stores: world.system.stores } as never, a.id)).length !== 1)
    throw new Error('A has no connected app');
  // An authorization request of A's in progress: its sign-in page names the interaction.
  const aBrowser = await signedIn(world, a);
  const signInPage = page(
    await aBrowser.open(
      authorizeUrl(world.system.url, {
        client_id: world.clients.app.client.id,
        redirect_uri: world.clients.app.redirectUri,
        state: 'cross-owner',
        code_challenge: pkcePair().challenge,
        scope: 'PROFILE_READ',
        prompt: 'login',
      }),
    ),
  );
  const uid = /\/auth\/interaction\/([^/]+)/.exec(signInPage.url.pathname)?.[1];
  if (!uid) throw new Error(`no interaction: ${signInPage.url.href}`);
  const bBrowser = await signedIn(world, b);
  const bCsrf = /name="_csrf" value="([^"]+)"/.exec(page(await bBrowser.open(CLIENTS)).html)?.[1];
  if (!bCsrf) throw new Error('no CSRF token on B page');
  f = {
    a,
    b,
    orgId,
    inviterOrgId,
    aClient,
    bClient,
    secretId: String(secret.id),
    keyId: String(key.id),
    connectionId,
    calendarId,
    invitationId: String(invitationId),
    uid,
    aBrowser,
    bBrowser,
    bCsrf,
  };
});

// ---------------------------------------------------------------------------------------------
// The route tables, from the routers the app mounts

/** Route factories only close over deps; an inert stand-in lets them build their tables. */
const inert: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (key === 'then' ? undefined : inert),
  apply: () => inert,
});
const deps = inert as AuthDeps;

interface PageRoute {
  method: string;
  path: string;
  params: string[];
}

function routesOf(router: Router): PageRoute[] {
  return router.stack.flatMap((layer) =>
    layer.methods
      .filter((method) => method !== 'HEAD')
      .map((method) => ({
        method,
        path: layer.path as string,
        params: layer.paramNames.map((param) => String(param.name)),
      })),
  );
}

const userRoutes = [
  ...routesOf(settingsRoutes(deps)),
  ...routesOf(pageRoutes(deps, { embed: inert as never })),
  ...routesOf(embedRoutes(deps)),
  ...routesOf(calendarConnectRoutes(deps)),
];
const consoleRoutes = routesOf(adminRoutes(deps));
const keyOf = (route: Pick<PageRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** Path ids that name no one's object. */
const NOT_OWNER_SCOPED: Record<string, string> = {
  'POST /auth/settings/calendars/connect/:provider': 'a provider name (google, microsoft), no object',
  'GET /auth/calendars/connect/:provider':
    "a provider name; its ?ticket= is a bearer capability of the onboarding window, the page names the ticket's account so that its holder can refuse (docs/calendars.md)",
  'POST /auth/calendars/connect/:provider': 'a provider name; the ticket in the form is a bearer capability',
  'GET /auth/calendars/oauth/:provider/callback':
    'a provider name; the state is bound to the browser that started and, from the settings, to its account',
};

type Ids = Record<string, string>;

interface Variant {
  label: string;
  /** Path ids naming A's object (as B). */
  a: Ids;
  /** The same, with the object's id one that does not exist. */
  missing: Ids;
  fields?: Record<string, string>;
  /** What B gets (both for A's id and for a missing one). */
  status: number;
}

const clientIds = () => ({ a: { clientId: f.aClient.client.id }, missing: { clientId: MISSING_CLIENT } });
const uidIds = () => ({ a: { uid: f.uid }, missing: { uid: MISSING_UID } });

/** Every route with a path id, on A's object. */
const CASES: Record<string, () => Variant[]> = {
  'POST /auth/settings/api-keys/:keyId/revoke': () => [
    { label: "A's key", a: { keyId: f.keyId }, missing: { keyId: MISSING_NUMBER }, status: 404 },
  ],
  'POST /auth/settings/connected-apps/:clientId/revoke': () => [
    {
      label: 'the app A connected',
      a: { clientId: world.clients.app.client.id },
      missing: { clientId: MISSING_CLIENT },
      status: 404,
    },
  ],
  'POST /auth/settings/calendars/:connectionId': () => [
    {
      label: "A's connection",
      a: { connectionId: f.connectionId },
      missing: { connectionId: MISSING_NUMBER },
      fields: { [`conflicts.${f.calendarId}`]: 'on', destination: '' },
      status: 404,
    },
  ],
  'POST /auth/settings/calendars/:connectionId/disconnect': () => [
    {
      label: "A's connection",
      a: { connectionId: f.connectionId },
      missing: { connectionId: MISSING_NUMBER },
      status: 404,
    },
  ],
  'POST /auth/settings/invitations/:membershipId/accept': () => [
    {
      label: "A's invitation",
      a: { membershipId: f.invitationId },
      missing: { membershipId: MISSING_NUMBER },
      status: 404,
    },
  ],
  'POST /auth/settings/invitations/:membershipId/decline': () => [
    {
      label: "A's invitation",
      a: { membershipId: f.invitationId },
      missing: { membershipId: MISSING_NUMBER },
      status: 404,
    },
  ],
  'GET /auth/settings/developer/oauth-clients/:clientId': () => [
    { label: "A's client", ...clientIds(), status: 404 },
  ],
  'POST /auth/settings/developer/oauth-clients/:clientId': () => [
    {
      label: "A's client",
      ...clientIds(),
      fields: { name: 'Taken by B', redirectUris: 'https://b.example.com/cb', 'scope.PROFILE_READ': 'on' },
      status: 404,
    },
  ],
  'GET /auth/settings/developer/oauth-clients/:clientId/edit': () => [
    { label: "A's client", ...clientIds(), status: 404 },
  ],
  'GET /auth/settings/developer/oauth-clients/:clientId/delete': () => [
    { label: "A's client", ...clientIds(), status: 404 },
  ],
  'POST /auth/settings/developer/oauth-clients/:clientId/delete': () => [
    { label: "A's client", ...clientIds(), fields: { confirm: 'yes' }, status: 404 },
  ],
  'POST /auth/settings/developer/oauth-clients/:clientId/secrets': () => [
    { label: "A's client", ...clientIds(), status: 404 },
  ],
  'POST /auth/settings/developer/oauth-clients/:clientId/secrets/:secretId/revoke': () => [
    {
      label: "A's client and secret",
      a: { clientId: f.aClient.client.id, secretId: f.secretId },
      missing: { clientId: MISSING_CLIENT, secretId: f.secretId },
      status: 404,
    },
    {
      label: "B's own client, A's secret",
      a: { clientId: f.bClient.client.id, secretId: f.secretId },
      missing: { clientId: f.bClient.client.id, secretId: MISSING_NUMBER },
      status: 404,
    },
  ],
  // The authorization request's pages: its interaction is bound to the browser that began it.
  'GET /auth/interaction/:uid': () => [{ label: "A's interaction", ...uidIds(), status: 400 }],
  'GET /auth/interaction/:uid/signin': () => [{ label: "A's interaction", ...uidIds(), status: 400 }],
  'POST /auth/interaction/:uid/signin': () => [
    {
      label: "A's interaction",
      ...uidIds(),
      fields: { email: f.b.email, password: f.b.password },
      status: 400,
    },
  ],
  'GET /auth/interaction/:uid/signup': () => [{ label: "A's interaction", ...uidIds(), status: 400 }],
  'POST /auth/interaction/:uid/signup': () => [{ label: "A's interaction", ...uidIds(), status: 400 }],
  'POST /auth/interaction/:uid/consent': () => [
    { label: "A's interaction", ...uidIds(), fields: { decision: 'allow' }, status: 400 },
  ],
  'POST /auth/interaction/:uid/profile': () => [{ label: "A's interaction", ...uidIds(), status: 400 }],
  'POST /auth/interaction/:uid/calendar': () => [
    { label: "A's interaction", ...uidIds(), fields: { action: 'skip' }, status: 400 },
  ],
  'POST /auth/interaction/:uid/calendar/caldav': () => [
    { label: "A's interaction", ...uidIds(), status: 400 },
  ],
};

// ---------------------------------------------------------------------------------------------
// Asking and comparing

const fill = (path: string, ids: Ids) =>
  path.replace(/:([A-Za-z]+)/g, (_all, name: string) => {
    const id = ids[name];
    if (id === undefined) throw new Error(`no id for :${name} of ${path}`);
    return encodeURIComponent(id);
  });

interface Answer {
  status: number;
  location: string | null;
  html: string;
}

async function ask(browser: FlowBrowser, method: string, path: string, fields: Record<string, string> = {}) {
  const response = await browser.request(
    path,
    method === 'GET'
      ? {}
      : {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: f.bCsrf, ...fields }),
        },
  );
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/**
 * The answer with the asked path and ids written as placeholders. Short ids (A's small numbers)
 * are left alone, as they would match digits anywhere: should A's id show elsewhere, the
 * comparison with the missing id (9 digits, replaced) fails.
 */
function normalized(answer: Answer, ids: Ids, asked?: string): Answer {
  const scrub = (value: string) => {
    let out = value.replace(/nonce="[^"]*"/g, 'nonce=""');
    if (asked) out = out.replaceAll(asked, '{path}');
    for (const [name, id] of Object.entries(ids).sort((x, y) => y[1].length - x[1].length))
      if (id.length >= 6)
        out = out.replaceAll(encodeURIComponent(id), `{${name}}`).replaceAll(id, `{${name}}`);
    return out;
  };
  return {
    status: answer.status,
    location: answer.location && scrub(answer.location),
    html: scrub(answer.html),
  };
}

/** Everything of A's the pages could change, as rows. */
async function snapshotOfA(): Promise<string> {
  const db = knex();
  const clientId = f.aClient.client.id;
  return JSON.stringify({
    user: await db('users').where({ id: f.a.id }),
    keys: await db('api_keys').where({ user_id: f.a.id }).orderBy('id'),
    client: await db('oauth_clients').where({ id: clientId }),
    secrets: await db('oauth_client_secrets').where({ client_id: clientId }).orderBy('id'),
    connections: await db('calendar_connections').where({ user_id: f.a.id }).orderBy('id'),
    calendars: await db('connected_calendars').where({ connection_id: f.connectionId }).orderBy('id'),
    memberships: await db('memberships').where({ user_id: f.a.id }).orderBy('id'),
    consents: await db('oauth_consents').where({ user_id: f.a.id }).orderBy('client_id'),
    organizations: await db('organizations').whereIn('id', [f.orgId, f.inviterOrgId]).orderBy('id'),
    apps: (await listConnectedApps({ stores: world.system.stores } as never, f.a.id)).map((app) => [
      app.clientId,
      app.scopes,
    ]),
  });
}

function showsNothingOfA(t: ExecutionContext, answer: Answer, label: string) {
  t.false(answer.html.includes(MARK), `${label}: a field of A's object is on the page`);
  t.false(answer.html.includes(f.a.email), `${label}: A's address is on the page`);
  t.false((answer.location ?? '').includes(MARK), `${label}: the redirect names A's object`);
}

// ---------------------------------------------------------------------------------------------
// Coverage: every route with a path id has a case (or a reason)

test.serial('every page route with a path id has a case or a reason', (t) => {
  const withIds = userRoutes.filter((route) => route.params.length > 0).map(keyOf);
  const missing = withIds.filter((key) => !(key in CASES) && !(key in NOT_OWNER_SCOPED));
  t.deepEqual(missing, [], 'add a case to CASES (or a reason to NOT_OWNER_SCOPED) for these routes');
  const known = new Set(userRoutes.map(keyOf));
  t.deepEqual(
    [...Object.keys(CASES), ...Object.keys(NOT_OWNER_SCOPED)].filter((key) => !known.has(key)),
    [],
    'cases for routes the routers no longer have',
  );
  t.true(consoleRoutes.length > 20, 'the console table was read');
});

for (const [key, variants] of Object.entries(CASES)) {
  test.serial(`${key}: B on A's object answers as on a missing one`, async (t) => {
    const [method, path] = key.split(' ') as [string, string];
    for (const variant of variants()) {
      const before = await snapshotOfA();
      const aPath = fill(path, variant.a);
      const missingPath = fill(path, variant.missing);
      const onA = await ask(f.bBrowser, method, aPath, variant.fields);
      const onMissing = await ask(f.bBrowser, method, missingPath, variant.fields);
      t.log(`${key} (${variant.label}): ${onA.status}${onA.location ? ` -> ${onA.location}` : ''}`);
      t.is(onA.status, variant.status, `${variant.label}: status\n${text(onA.html).slice(0, 500)}`);
      t.deepEqual(
        normalized(onA, variant.a, aPath),
        normalized(onMissing, variant.missing, missingPath),
        variant.label,
      );
      showsNothingOfA(t, onA, variant.label);
      t.is(await snapshotOfA(), before, `${variant.label}: A's objects changed`);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The admin console: refused to B on every route

test.serial('every admin console route is 403 for a user who is not a service administrator', async (t) => {
  const ids: Ids = {
    userId: String(f.a.id),
    orgId: String(f.orgId),
    membershipId: f.invitationId,
    clientId: f.aClient.client.id,
    serverId: '1',
  };
  const fields = {
    confirm: 'yes',
    reason: 'because',
    pbacEnabled: 'true',
    email: f.b.email,
    role: 'OWNER',
    name: MARK,
  };
  for (const route of consoleRoutes) {
    const before = await snapshotOfA();
    const answer = await ask(f.bBrowser, route.method, fill(route.path, ids), fields);
    const label = keyOf(route);
    t.is(answer.status, 403, label);
    t.true(text(answer.html).includes(CONSOLE_ADMIN_ONLY), `${label}: the console's refusal`);
    t.false(answer.html.includes(f.a.email), `${label}: A's address`);
    t.is(await snapshotOfA(), before, `${label}: A's objects changed`);
  }
  t.is((await knex()('users').where({ id: f.b.id }).first()).is_service_admin, false);
});

// ---------------------------------------------------------------------------------------------
// Ids in query strings and form fields (listed by hand: the route table does not name them)

/** A's shown-once reveal id, from A creating an API key on the settings page. */
async function apiKeyRevealOfA(): Promise<string> {
  const list = page(await f.aBrowser.open('/auth/settings/api-keys'));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  const made = await f.aBrowser.request('/auth/settings/api-keys', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf }),
  });
  const reveal = new URL(made.headers.get('location') ?? '', world.system.url).searchParams.get('reveal');
  if (!reveal) throw new Error(`no reveal: ${made.status}`);
  return reveal;
}

test.serial("?reveal= on the API keys page: A's reveal id shows B nothing and stays A's", async (t) => {
  const reveal = await apiKeyRevealOfA();
  const missing = randomBytes(32).toString('base64url');
  const onA = await ask(f.bBrowser, 'GET', `/auth/settings/api-keys?reveal=${reveal}`);
  const onMissing = await ask(f.bBrowser, 'GET', `/auth/settings/api-keys?reveal=${missing}`);
  t.is(onA.status, 200);
  t.deepEqual(normalized(onA, { reveal }), normalized(onMissing, { reveal: missing }));
  t.false(onA.html.includes('id="new-api-key"'), 'no key shown to B');
  const ownerSees = page(await f.aBrowser.open(`/auth/settings/api-keys?reveal=${reveal}`));
  t.true(ownerSees.html.includes('id="new-api-key"'), "B's try did not use up A's reveal");
});

test.serial(
  "?reveal= on a client's page: A's reveal id on B's own client shows B nothing and stays A's",
  async (t) => {
    const aPage = page(await f.aBrowser.open(`${CLIENTS}/${encodeURIComponent(f.aClient.client.id)}`));
    const csrf = /name="_csrf" value="([^"]+)"/.exec(aPage.html)?.[1] ?? '';
    const made = await f.aBrowser.request(`${CLIENTS}/${encodeURIComponent(f.aClient.client.id)}/secrets`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }),
    });
    const revealUrl = new URL(made.headers.get('location') ?? '', world.system.url);
    const reveal = revealUrl.searchParams.get('reveal');
    if (!reveal) throw new Error(`no reveal: ${made.status}`);
    const missing = randomBytes(32).toString('base64url');
    const bClientPage = `${CLIENTS}/${encodeURIComponent(f.bClient.client.id)}`;
    const onA = await ask(f.bBrowser, 'GET', `${bClientPage}?reveal=${reveal}`);
    const onMissing = await ask(f.bBrowser, 'GET', `${bClientPage}?reveal=${missing}`);
    t.is(onA.status, 200);
    t.deepEqual(normalized(onA, { reveal }), normalized(onMissing, { reveal: missing }));
    t.false(onA.html.includes('id="new-secret"'));
    showsNothingOfA(t, onA, 'reveal');
    const ownerSees = page(await f.aBrowser.open(revealUrl));
    t.true(ownerSees.html.includes('id="new-secret"'), "B's try did not use up A's reveal");
    // The secret A made here is deleted again, so that the snapshots of later cases hold.
    const secrets = await knex()('oauth_client_secrets')
      .where({ client_id: f.aClient.client.id })
      .whereNull('revoked_at')
      .orderBy('id', 'desc');
    await knex()('oauth_client_secrets').where({ id: secrets[0].id }).del();
  },
);

test.serial("?reconnect= on the calendars page: A's connection fills in nothing", async (t) => {
  const onA = await ask(f.bBrowser, 'GET', `/auth/settings/calendars?reconnect=${f.connectionId}`);
  const onMissing = await ask(f.bBrowser, 'GET', `/auth/settings/calendars?reconnect=${MISSING_NUMBER}`);
  t.is(onA.status, 200);
  t.deepEqual(
    normalized(onA, { connectionId: f.connectionId }),
    normalized(onMissing, { connectionId: MISSING_NUMBER }),
  );
  t.false(onA.html.includes(`dav.example.com/${MARK}`), "A's server URL");
  showsNothingOfA(t, onA, 'reconnect');
});

test.serial(
  "the selection form of B's own connection with A's calendar ids changes nothing of A's",
  async (t) => {
    const mine = await connectionOf(f.b.id, 'b');
    const before = await snapshotOfA();
    const saved = await ask(f.bBrowser, 'POST', `/auth/settings/calendars/${mine.connectionId}`, {
      [`conflicts.${f.calendarId}`]: 'on',
      destination: f.calendarId,
    });
    t.is(saved.status, 303);
    t.is(await snapshotOfA(), before);
  },
);

test.serial(
  "a new client owned by A's organization: 403 (as the API), nothing of the organization shown",
  async (t) => {
    const form = page(await f.bBrowser.open(`${CLIENTS}/new`));
    t.false(form.html.includes(MARK), "A's organization is not offered");
    const fields = {
      name: 'B into A org',
      redirectUris: 'https://b.example.com/cb',
      'scope.PROFILE_READ': 'on',
      clientType: 'confidential',
    };
    const onA = await ask(f.bBrowser, 'POST', CLIENTS, { ...fields, organizationId: String(f.orgId) });
    const onMissing = await ask(f.bBrowser, 'POST', CLIENTS, { ...fields, organizationId: MISSING_NUMBER });
    t.is(onA.status, 403);
    t.is(onMissing.status, 404);
    showsNothingOfA(t, onA, 'organizationId');
    t.is((await knex()('oauth_clients').where({ organization_id: f.orgId })).length, 1, 'only A’s client');
  },
);

test.serial("A's authorization request goes on after B's tries at its interaction", async (t) => {
  const resumed = page(await f.aBrowser.open(`/auth/interaction/${f.uid}`));
  t.is(resumed.status, 200);
  t.truthy(formOf(resumed.html, `/auth/interaction/${f.uid}/signin`), "A's sign-in form");
});

test.serial(
  "the admin console: a membership of another organization under an organization's path is not found",
  async (t) => {
    const admin = await signedIn(world, world.admin);
    const before = await snapshotOfA();
    const remove = async (membershipId: string) => {
      const path = `/auth/admin/organizations/${f.orgId}/members/${membershipId}/remove`;
      const form = page(await admin.open(`/auth/admin/organizations/${f.orgId}`));
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.html)?.[1] ?? '';
      const response = await admin.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf }),
      });
      return {
        status: response.status,
        location: response.headers.get('location'),
        html: await response.text(),
      };
    };
    // A's membership of the inviting organization, named under A's own organization.
    const onOther = await remove(f.invitationId);
    const onMissing = await remove(MISSING_NUMBER);
    t.is(onOther.status, 404);
    t.deepEqual(
      normalized(onOther, { membershipId: f.invitationId }),
      normalized(onMissing, { membershipId: MISSING_NUMBER }),
    );
    t.is(await snapshotOfA(), before, 'the membership is still there');
  },
);

test.serial(
  "the admin console: another administrator's reveal id of a resource server secret shows nothing and stays theirs",
  async (t) => {
    const first = await signedIn(world, world.admin);
    const list = page(await first.open('/auth/admin/resource-servers'));
    const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
    const made = await first.request('/auth/admin/resource-servers', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, name: `Server ${uniqueTag()}`, description: '' }),
    });
    const revealUrl = new URL(made.headers.get('location') ?? '', world.system.url);
    const reveal = revealUrl.searchParams.get('reveal');
    if (!reveal) throw new Error(`no reveal: ${made.status}`);
    const second = await signedIn(world, await insertUser(knex(), { serviceAdmin: true }));
    const missing = randomBytes(32).toString('base64url');
    const onOther = page(await second.open(revealUrl));
    const onMissing = page(await second.open(`${revealUrl.pathname}?reveal=${missing}`));
    t.is(onOther.status, 200);
    t.false(onOther.html.includes('id="new-secret"'), 'no secret for the other administrator');
    t.is(onOther.html.replaceAll(reveal, '{reveal}'), onMissing.html.replaceAll(missing, '{reveal}'));
    t.true(
      page(await first.open(revealUrl)).html.includes('id="new-secret"'),
      'still shown to its maker once',
    );
  },
);
