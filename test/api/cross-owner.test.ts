import { CredentialsBox } from '@sched/calendars/credentials-box';
import { routes } from '@sched/api/routes/index';
import type { AnyRoute } from '@sched/api/routing/route';
import { saveCalendarConnection } from '@sched/db/queries/calendar-connections';
import { NO_SCOPE_ENDPOINT_MESSAGE, SCOPES } from '@sched/policy/scopes';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import {
  insertClient,
  insertCustomRole,
  insertMembership,
  insertOrganization,
  insertTeam,
  insertUser,
  type TestClient,
  type TestUser,
  uniqueTag,
} from '../support/factories.ts';
import type { ApiResponse, Json } from '../support/http.ts';
import { callToolRaw } from '../support/mcp.ts';
import {
  attendee,
  FUTURE_YEAR,
  personalEventType,
  setAvailability,
  teamEventType,
} from '../support/scheduling.ts';
import { createTestAccessToken } from '../support/tokens.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * Broken object level authorization (OWASP API1), route by route: two unrelated users, A and B.
 * A owns the objects (personal ones, an organization with a team and a custom role, OAuth clients
 * with secrets and managed users); B belongs to none of them but has an organization, team and
 * client of B's own. Three tables, each driven by the route list the API mounts (so a route
 * added later without a case fails the coverage tests):
 *
 * 1. CASES: every route with an id (path parameter, or an id field of its body or query) is
 *    called on A's object as B, with every credential B can have: an API key, an OAuth access
 *    token holding every API scope, a legacy token, the secret of B's own client on the
 *    client-secret family, and the route's MCP tool if it has one. Or it is in NOT_OWNER_SCOPED
 *    with the reason.
 * 2. Nested paths: B's own organization, team or client in the path, A's object below it (a
 *    team, membership, role, event type, client secret or managed user): 404 like an unknown id.
 * 3. FIELD_CASES: B acting where B may, with an id of A's in the body or query (a host, a user
 *    to add, a custom role, a calendar, an audit filter).
 *
 * Each answer is the exact refusal (status, error envelope, message; a 404 is the same answer as
 * for an id that does not exist, so the object's existence does not show), carries nothing of
 * A's (MARK is in the names of A's objects), and a write leaves A's objects as they were. The
 * tests run serially: the "unchanged" snapshots must not see another case's set-up.
 */

const world = setUpWorld(test);
const { call, knex } = world;

/** Put in the names of A's objects: no refusal may show it. */
const MARK = `owned-by-a-${uniqueTag()}`;

type Credential = 'key' | 'oauth' | 'legacy' | 'secret';

interface Fixtures {
  a: TestUser;
  b: TestUser;
  /** An accepted MEMBER of A's organization and team (the target of membership writes). */
  member: TestUser;
  orgId: number;
  teamId: number;
  orgMembershipId: number;
  teamMembershipId: number;
  roleId: string;
  /** A's personal OAuth client, with its plain secret; B's own client (B's client secret). */
  aClient: TestClient;
  bClient: TestClient;
  /** B's OAuth tokens: every API scope, and legacy. */
  bOauth: string;
  bLegacy: string;
  /** B's OAuth token for the MCP endpoint (its audience), every API scope. */
  bMcp: string;
  /** B's own organization and team (B is OWNER of both), with a member and a custom role. */
  bOrgId: number;
  bTeamId: number;
  bOrgMembershipId: number;
  bTeamMembershipId: number;
  bRoleId: string;
}

/** A's objects under A's organization and client, for B's own organization and client to name. */
interface Children {
  teamEventTypeId: number;
  secretId: string;
  managedUserId: number;
}

let children: Children;

let f: Fixtures;

test.serial.before(async () => {
  const db = knex();
  const a = await insertUser(db, { name: `A ${MARK}` });
  const b = await insertUser(db, { name: 'B' });
  const member = await insertUser(db, { name: `Member ${MARK}` });
  const orgId = await insertOrganization(db, { name: `Org ${MARK}` });
  const teamId = await insertTeam(db, orgId, { name: `Team ${MARK}` });
  await insertMembership(db, { userId: a.id, organizationId: orgId, role: 'OWNER' });
  await insertMembership(db, { userId: a.id, teamId, role: 'OWNER' });
  const orgMembershipId = await insertMembership(db, {
    userId: member.id,
    organizationId: orgId,
    role: 'MEMBER',
  });
  const teamMembershipId = await insertMembership(db, { userId: member.id, teamId, role: 'MEMBER' });
  const roleId = await insertCustomRole(db, orgId, ['booking.read']);
  const aClient = await insertClient(db, { ownerUserId: a.id, name: `App ${MARK}`, scopes: [...SCOPES] });
  const bClient = await insertClient(db, { ownerUserId: b.id, name: 'B app', scopes: [...SCOPES] });
  const bOauth = await createTestAccessToken(world.system.stores, {
    userId: b.id,
    clientId: bClient.client.id,
    scopes: SCOPES,
  });
  const bLegacy = await createTestAccessToken(world.system.stores, {
    userId: b.id,
    clientId: bClient.client.id,
    legacy: true,
  });
  const bMcp = await createTestAccessToken(world.system.stores, {
    userId: b.id,
    clientId: bClient.client.id,
    scopes: SCOPES,
    audience: `${world.system.url}/mcp`,
  });
  const bOrgId = await insertOrganization(db, { name: 'B org' });
  const bTeamId = await insertTeam(db, bOrgId, { name: 'B team' });
  await insertMembership(db, { userId: b.id, organizationId: bOrgId, role: 'OWNER' });
  await insertMembership(db, { userId: b.id, teamId: bTeamId, role: 'OWNER' });
  const bMember = await insertUser(db, { name: 'B member' });
  const bOrgMembershipId = await insertMembership(db, {
    userId: bMember.id,
    organizationId: bOrgId,
    role: 'MEMBER',
  });
  const bTeamMembershipId = await insertMembership(db, {
    userId: bMember.id,
    teamId: bTeamId,
    role: 'MEMBER',
  });
  const bRoleId = await insertCustomRole(db, bOrgId, ['booking.read']);
  f = {
    bOrgId,
    bTeamId,
    bOrgMembershipId,
    bTeamMembershipId,
    bRoleId,
    bMcp,
    a,
    b,
    member,
    orgId,
    teamId,
    orgMembershipId,
    teamMembershipId,
    roleId,
    aClient,
    bClient,
    bOauth,
    bLegacy,
  };
});

test.serial.before(async () => {
  children = {
    teamEventTypeId: (await teamEventType(knex(), f.teamId, [f.a.id])).id,
    secretId: await secretOf(f.aClient.client.id),
    managedUserId: await managedUserOfA(),
  };
});

// ---------------------------------------------------------------------------------------------
// Which routes name an object id

const routeKey = (route: AnyRoute) => `${route.method} ${route.path}`;

// biome-ignore lint/suspicious/noExplicitAny: zod internals, read to list an object schema's keys
type Schema = any;

/** Unwraps optional, nullable, default, pipe and named wrappers. */
function unwrap(schema: Schema): Schema {
  const inner = schema?.def?.innerType ?? schema?.def?.in ?? schema?.def?.schema;
  return inner ? unwrap(inner) : schema;
}

/** An object schema's field names, `list[].field` for arrays of objects, through unions. */
function fieldNames(schema: Schema): string[] {
  const plain = unwrap(schema);
  if (!plain) return [];
  if (plain.shape) {
    return Object.entries(plain.shape as Record<string, Schema>).flatMap(([name, value]) => {
      const element = unwrap(value)?.def?.type === 'array' ? unwrap(unwrap(value).def.element) : undefined;
      const nested = element?.shape ? fieldNames(element).map((sub) => `${name}[].${sub}`) : [];
      return [name, ...nested];
    });
  }
  const options = plain.def?.options;
  return Array.isArray(options) ? [...new Set(options.flatMap(fieldNames))] : [];
}

const ID_FIELD = /^(id|uid|[a-z][A-Za-z]*Ids?)$/;
const isIdField = (name: string) => ID_FIELD.test(name.split('.').at(-1)!);

/** Id fields of a route's body and query: `body.userId`, `query.targetId`, `body.calendars[].id`. */
const idFieldsOf = (route: AnyRoute): string[] => [
  ...fieldNames(route.body)
    .filter(isIdField)
    .map((name) => `body.${name}`),
  ...fieldNames(route.query)
    .filter(isIdField)
    .map((name) => `query.${name}`),
];

/** The path parameters of a route, in order. */
const pathParams = (route: AnyRoute): string[] =>
  [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);

/** The ids a route names: path parameters, and id fields of its body and query. */
const idsOf = (route: AnyRoute): string[] => [
  ...pathParams(route).map((name) => `:${name}`),
  ...idFieldsOf(route),
];

/**
 * Routes with an id that are not owner-scoped, with why. Everything else with an id needs a case.
 */
const NOT_OWNER_SCOPED: Record<string, string> = {
  'GET /slots': 'public: the free slots of any event type are what its booking page shows',
  'POST /bookings': 'public: anyone books any event type (the booking page)',
  'POST /bookings/:uid/cancel':
    'public: the uid is the capability the attendee holds (docs/decisions.md, GET /v2/bookings/{uid})',
  'POST /bookings/:uid/reschedule': 'public: the uid is the capability, as for cancel',
};

// ---------------------------------------------------------------------------------------------
// The cases

interface Made {
  /** Path parameters (by name, without the colon). */
  params: Record<string, string | number>;
  body?: unknown;
  query?: string;
  /** What the object looks like (read as its owner or from the database): equal after B's call. */
  view?: () => Promise<unknown>;
}

interface Refusal {
  status: 401 | 403 | 404;
  message: string;
}

interface Case {
  /** Makes A's object (runs after the fixtures exist). */
  make: () => Promise<Made>;
  /**
   * What B gets with an API key (and with OAuth tokens, unless the route refuses those first).
   * Default: the refusal of an outsider by the route's access rule, or the admin API's.
   */
  refusal?: Refusal;
  /** The client-secret family: B's client's secret (B's API key and token get the missing-header 401). */
  secretOnly?: boolean;
}

const notFound = (message: string): Refusal => ({ status: 404, message });
const forbidden = (message: string): Refusal => ({ status: 403, message });
const SECRET_MISSING: Refusal = { status: 401, message: 'The x-svc-secret-key header is required' };
const ADMIN_ONLY = forbidden('Only service administrators may use the admin API');

const read = async (path: string, token: string): Promise<unknown> => {
  const response = await call('GET', `/v2${path}`, { token });
  return { status: response.status, body: response.body?.data ?? response.body };
};
const rows = (table: string, where: Record<string, unknown>) => async () =>
  // Dates compared as text: the same row reads equal.
  JSON.parse(JSON.stringify(await knex()(table).where(where)));

/** The organization and team routes: A's organization and team, the member's memberships. */
function orgCase(body?: unknown, view?: () => Promise<unknown>): Case {
  return {
    make: async () => ({
      params: {},
      ...(body === undefined ? {} : { body }),
      ...(view === undefined ? {} : { view }),
    }),
  };
}
const orgRows = () =>
  Promise.all([
    rows('memberships', { organization_id: f.orgId })(),
    rows('memberships', { team_id: f.teamId })(),
    rows('teams', { id: f.teamId })(),
    rows('organizations', { id: f.orgId })(),
  ]);
const roleRows = () =>
  Promise.all([
    rows('roles', { organization_id: f.orgId })(),
    knex()('role_permissions')
      .whereIn('role_id', knex()('roles').select('id').where({ organization_id: f.orgId }))
      .orderBy(['role_id', 'permission']),
  ]);

async function eventTypeOfA() {
  return personalEventType(knex(), f.a.id);
}

async function bookingOfA(): Promise<string> {
  await setAvailability(knex(), f.a.user);
  const eventType = await eventTypeOfA();
  const made = await call('POST', '/v2/bookings', {
    body: { eventTypeId: eventType.id, start: `${FUTURE_YEAR}-03-04T10:00:00Z`, attendee },
  });
  if (made.status !== 201) throw new Error(`booking: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body.data.uid;
}

async function connectionOfA(): Promise<number> {
  const saved = await saveCalendarConnection(knex(), {
    userId: f.a.id,
    provider: 'caldav',
    account: `a-${uniqueTag()}`,
    credentialsSealed: new CredentialsBox(world.system.config.encryptionKey).seal({
      serverUrl: 'https://dav.example.com/',
      username: 'a',
      password: 'pw',
    }),
    calendars: [
      { externalId: 'https://dav.example.com/a/work/', name: `Work ${MARK}`, readOnly: false, primary: true },
    ],
  });
  return saved.id;
}

/** A client A owns that also belongs to A's organization: B is neither its owner nor a member. */
async function clientOfA(): Promise<TestClient> {
  return insertClient(knex(), {
    ownerUserId: f.a.id,
    organizationId: f.orgId,
    name: `App ${MARK}`,
    scopes: ['PROFILE_READ'],
  });
}

async function secretOf(clientId: string): Promise<string> {
  const made = await call('POST', `/v2/oauth-clients/${clientId}/secrets`, { token: f.a.apiKey });
  if (made.status !== 201) throw new Error(`secret: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body.data.id;
}

async function managedUserOfA(): Promise<number> {
  const made = await call('POST', `/v2/oauth-clients/${f.aClient.client.id}/users`, {
    headers: { 'x-svc-secret-key': f.aClient.secret! },
    body: { email: `managed-${uniqueTag()}@example.com`, name: `Managed ${MARK}` },
  });
  if (made.status !== 201) throw new Error(`managed user: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body.data.id;
}

const clientView = (clientId: string) => async () =>
  Promise.all([
    read(`/oauth-clients/${clientId}`, f.a.apiKey),
    read(`/oauth-clients/${clientId}/secrets`, f.a.apiKey),
  ]);

/** A's own token for A's client works (revocation would end it). */
async function tokenOfA(clientId: string) {
  const token = await createTestAccessToken(world.system.stores, {
    userId: f.a.id,
    clientId,
    scopes: ['PROFILE_READ'],
  });
  return { token, view: async () => (await call('GET', '/v2/me', { token })).status };
}

const CASES: Record<string, Case> = {
  'GET /event-types/:eventTypeId': {
    make: async () => ({ params: { eventTypeId: (await eventTypeOfA()).id } }),
    refusal: notFound('Event type not found'),
  },
  'POST /teams/:teamId/event-types': {
    make: async () => ({
      params: {},
      body: { title: 'Sneaky', slug: `sneaky-${uniqueTag()}`, lengthInMinutes: 30, hostUserIds: [f.a.id] },
      view: rows('event_types', { team_id: f.teamId }),
    }),
  },
  'GET /teams/:teamId/event-types': orgCase(),
  'GET /teams/:teamId/event-types/:eventTypeId': {
    make: async () => ({ params: { eventTypeId: (await teamEventType(knex(), f.teamId, [f.a.id])).id } }),
  },
  'GET /bookings/:uid': {
    make: async () => ({ params: { uid: await bookingOfA() } }),
    refusal: notFound('Booking not found'),
  },
  'GET /teams/:teamId/bookings': orgCase(),
  'DELETE /me/connected-apps/:clientId': {
    make: async () => {
      const { view } = await tokenOfA(f.aClient.client.id);
      return { params: { clientId: f.aClient.client.id }, view };
    },
    refusal: notFound('Connected app not found'),
  },
  'POST /me/invitations/:membershipId/accept': {
    make: async () => invitationOfA(),
    refusal: notFound('Invitation not found'),
  },
  'POST /me/invitations/:membershipId/decline': {
    make: async () => invitationOfA(),
    refusal: notFound('Invitation not found'),
  },
  'DELETE /api-keys/:id': {
    make: async () => {
      const listed = await call('GET', '/v2/api-keys', { token: f.a.apiKey });
      return {
        params: { id: listed.body.data[0].id },
        view: () => read('/api-keys', f.a.apiKey),
      };
    },
    refusal: notFound('API key not found'),
  },
  'PATCH /calendars/:connectionId': {
    make: async () => {
      const connectionId = await connectionOfA();
      const view = () => read('/calendars', f.a.apiKey);
      const calendar = ((await view()) as Json).body.find((c: Json) => c.id === connectionId).calendars[0];
      return {
        params: { connectionId },
        body: { calendars: [{ id: calendar.id, checkForConflicts: false, isDestination: false }] },
        view,
      };
    },
    refusal: notFound('Calendar connection not found'),
  },
  'DELETE /calendars/:connectionId': {
    make: async () => ({
      params: { connectionId: await connectionOfA() },
      view: () => read('/calendars', f.a.apiKey),
    }),
    refusal: notFound('Calendar connection not found'),
  },
  'GET /teams/:teamId': orgCase(),
  'POST /organizations/:orgId/teams': orgCase({ name: 'Sneaky', slug: `sneaky-${uniqueTag()}` }, () =>
    rows('teams', { organization_id: f.orgId })(),
  ),
  'GET /organizations/:orgId/teams': orgCase(),
  'GET /organizations/:orgId/teams/:teamId': orgCase(),
  'POST /organizations/:orgId/memberships': orgCase(
    { email: `invited-${uniqueTag()}@example.com`, role: 'MEMBER' },
    orgRows,
  ),
  'POST /organizations/:orgId/teams/:teamId/memberships': orgCase(
    { email: `invited-${uniqueTag()}@example.com`, role: 'MEMBER' },
    orgRows,
  ),
  'POST /teams/:teamId/memberships': orgCase(
    { email: `invited-${uniqueTag()}@example.com`, role: 'MEMBER' },
    orgRows,
  ),
  'GET /organizations/:orgId/memberships': orgCase(),
  'GET /organizations/:orgId/teams/:teamId/memberships': orgCase(),
  'GET /teams/:teamId/memberships': orgCase(),
  'GET /organizations/:orgId/memberships/:membershipId': orgCase(),
  'GET /organizations/:orgId/teams/:teamId/memberships/:membershipId': orgCase(),
  'GET /teams/:teamId/memberships/:membershipId': orgCase(),
  'PATCH /organizations/:orgId/memberships/:membershipId': orgCase({ role: 'ADMIN' }, orgRows),
  'PATCH /organizations/:orgId/teams/:teamId/memberships/:membershipId': orgCase({ role: 'ADMIN' }, orgRows),
  'PATCH /teams/:teamId/memberships/:membershipId': orgCase({ role: 'ADMIN' }, orgRows),
  'DELETE /organizations/:orgId/memberships/:membershipId': orgCase(undefined, orgRows),
  'DELETE /organizations/:orgId/teams/:teamId/memberships/:membershipId': orgCase(undefined, orgRows),
  'DELETE /teams/:teamId/memberships/:membershipId': orgCase(undefined, orgRows),
  'POST /organizations/:orgId/roles': orgCase(
    { name: `Sneaky ${uniqueTag()}`, permissions: ['booking.read'] },
    roleRows,
  ),
  'GET /organizations/:orgId/roles': orgCase(),
  'GET /organizations/:orgId/roles/:roleId': orgCase(),
  'PATCH /organizations/:orgId/roles/:roleId': orgCase({ name: 'Renamed' }, roleRows),
  'DELETE /organizations/:orgId/roles/:roleId': orgCase(undefined, roleRows),
  'POST /organizations/:orgId/roles/:roleId/permissions': orgCase({ permissions: ['team.read'] }, roleRows),
  'GET /organizations/:orgId/roles/:roleId/permissions': orgCase(),
  'PUT /organizations/:orgId/roles/:roleId/permissions': orgCase({ permissions: ['team.read'] }, roleRows),
  'DELETE /organizations/:orgId/roles/:roleId/permissions': orgCase(
    { permissions: ['booking.read'] },
    roleRows,
  ),
  'DELETE /organizations/:orgId/roles/:roleId/permissions/:permission': orgCase(undefined, roleRows),
  'GET /organizations/:orgId/audit-events': orgCase(),
  'GET /admin/audit-events': {
    make: async () => ({ params: {}, query: `actor=${f.a.id}` }),
  },
  'POST /admin/organizations': {
    make: async () => {
      const slug = `sneaky-${uniqueTag()}`;
      return {
        params: {},
        body: { name: 'Sneaky', slug, ownerUserId: f.a.id },
        view: rows('organizations', { slug }),
      };
    },
  },
  'PATCH /admin/organizations/:orgId': orgCase({ pbacEnabled: true }, orgRows),
  'POST /admin/organizations/:orgId/memberships': orgCase({ userId: 0, role: 'MEMBER' }, orgRows),
  'DELETE /admin/resource-servers/:id': {
    make: async () => {
      const made = await call('POST', '/v2/admin/resource-servers', {
        token: world.admin.apiKey,
        body: { name: `rs-${uniqueTag()}`, description: MARK },
      });
      return {
        params: { id: made.body.data.id },
        view: () => read('/admin/resource-servers', world.admin.apiKey),
      };
    },
  },
  'POST /admin/oauth-clients/:clientId/approve': {
    make: async () => {
      const client = await insertClient(knex(), {
        ownerUserId: f.a.id,
        name: `App ${MARK}`,
        status: 'PENDING',
      });
      return {
        params: { clientId: client.client.id },
        view: rows('oauth_clients', { id: client.client.id }),
      };
    },
  },
  'POST /admin/oauth-clients/:clientId/reject': {
    make: async () => {
      const client = await insertClient(knex(), {
        ownerUserId: f.a.id,
        name: `App ${MARK}`,
        status: 'PENDING',
      });
      return {
        params: { clientId: client.client.id },
        body: { reason: 'Not wanted' },
        view: rows('oauth_clients', { id: client.client.id }),
      };
    },
  },
  'POST /oauth-clients': {
    make: async () => ({
      params: {},
      body: {
        name: 'Sneaky',
        redirectUris: ['https://sneaky.example.com/callback'],
        scopes: ['PROFILE_READ'],
        organizationId: f.orgId,
      },
      view: rows('oauth_clients', { organization_id: f.orgId }),
    }),
    refusal: forbidden('Only an admin or owner of the organization may register a client for it'),
  },
  'GET /oauth-clients/:clientId': {
    make: async () => ({ params: { clientId: (await clientOfA()).client.id } }),
    refusal: notFound('OAuth client not found'),
  },
  'PATCH /oauth-clients/:clientId': {
    make: async () => {
      const clientId = (await clientOfA()).client.id;
      return { params: { clientId }, body: { name: 'Renamed' }, view: clientView(clientId) };
    },
    refusal: notFound('OAuth client not found'),
  },
  'DELETE /oauth-clients/:clientId': {
    make: async () => {
      const clientId = (await clientOfA()).client.id;
      return { params: { clientId }, view: clientView(clientId) };
    },
    refusal: notFound('OAuth client not found'),
  },
  'POST /oauth-clients/:clientId/secrets': {
    make: async () => {
      const clientId = (await clientOfA()).client.id;
      return { params: { clientId }, view: clientView(clientId) };
    },
    refusal: notFound('OAuth client not found'),
  },
  'GET /oauth-clients/:clientId/secrets': {
    make: async () => ({ params: { clientId: (await clientOfA()).client.id } }),
    refusal: notFound('OAuth client not found'),
  },
  'DELETE /oauth-clients/:clientId/secrets/:secretId': {
    make: async () => {
      const clientId = (await clientOfA()).client.id;
      return { params: { clientId, secretId: await secretOf(clientId) }, view: clientView(clientId) };
    },
    refusal: notFound('OAuth client not found'),
  },
  'POST /oauth-clients/:clientId/revoke-tokens': {
    make: async () => {
      const clientId = (await clientOfA()).client.id;
      const { view } = await tokenOfA(clientId);
      return { params: { clientId }, view };
    },
    refusal: notFound('OAuth client not found'),
  },
  'POST /oauth-clients/:clientId/users': {
    make: async () => {
      const email = `sneaky-${uniqueTag()}@example.com`;
      return { params: { clientId: f.aClient.client.id }, body: { email }, view: rows('users', { email }) };
    },
    refusal: { status: 401, message: 'Invalid client secret' },
    secretOnly: true,
  },
  'GET /oauth-clients/:clientId/users': {
    make: async () => ({ params: { clientId: f.aClient.client.id } }),
    refusal: { status: 401, message: 'Invalid client secret' },
    secretOnly: true,
  },
  'GET /oauth-clients/:clientId/users/:userId': managedUserCase(),
  'PATCH /oauth-clients/:clientId/users/:userId': managedUserCase({ name: 'Renamed' }),
  'DELETE /oauth-clients/:clientId/users/:userId': managedUserCase(),
};

async function invitationOfA(): Promise<Made> {
  const orgId = await insertOrganization(knex(), { name: `Inviting ${MARK}` });
  const membershipId = await insertMembership(knex(), {
    userId: f.a.id,
    organizationId: orgId,
    role: 'MEMBER',
    accepted: false,
  });
  return { params: { membershipId }, view: rows('memberships', { id: membershipId }) };
}

/** The managed user as A's client reads it. */
async function managedUserView(userId: number): Promise<unknown> {
  const response = await call('GET', `/v2/oauth-clients/${f.aClient.client.id}/users/${userId}`, {
    headers: { 'x-svc-secret-key': f.aClient.secret! },
  });
  return { status: response.status, data: response.body.data };
}

/**
 * A managed user of A's client, asked for through B's own client (with B's secret): a user of
 * another client is 404. A's client with B's secret is the 401 of the routes above.
 */
function managedUserCase(body?: unknown): Case {
  return {
    make: async () => {
      const userId = await managedUserOfA();
      return {
        params: { clientId: f.bClient.client.id, userId },
        ...(body === undefined ? {} : { body }),
        view: () => managedUserView(userId),
      };
    },
    refusal: notFound('Managed user not found'),
    secretOnly: true,
  };
}

// ---------------------------------------------------------------------------------------------
// Calling as B

/** The route's path parameters: the case's, else the organization's defaults. */
function paramValues(
  route: AnyRoute,
  params: Record<string, string | number>,
): Record<string, string | number> {
  const team = route.path.includes('/teams/:teamId/memberships');
  const defaults: Record<string, string | number> = {
    orgId: f.orgId,
    teamId: f.teamId,
    membershipId: team ? f.teamMembershipId : f.orgMembershipId,
    roleId: f.roleId,
    permission: 'booking.read',
  };
  const values: Record<string, string | number> = {};
  for (const [, name] of route.path.matchAll(/:([A-Za-z_]+)/g)) {
    const value = params[name!] ?? defaults[name!];
    if (value === undefined) throw new Error(`${routeKey(route)}: no value for :${name}`);
    values[name!] = value;
  }
  return values;
}

function fillPath(route: AnyRoute, params: Record<string, string | number>): string {
  const values = paramValues(route, params);
  return route.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(values[name])));
}

/** Same path with the object's id (the last parameter) replaced by one that does not exist. */
function unknownPath(route: AnyRoute, params: Record<string, string | number>): string {
  const last = [...route.path.matchAll(/:([A-Za-z_]+)/g)].at(-1)?.[1];
  const value = last === undefined ? undefined : params[last];
  if (last === undefined || value === undefined) return fillPath(route, params);
  return fillPath(route, { ...params, [last]: typeof value === 'number' ? 2_000_000_000 : `${value}x` });
}

/** B's credentials for a case: bearer credentials, or B's client secret on the client-secret family. */
function credentialsFor(c: Case): Array<[Credential, Record<string, string>]> {
  if (c.secretOnly) {
    // B's user credentials are no way in either.
    return [
      ['secret', { 'x-svc-secret-key': f.bClient.secret! }],
      ['key', { authorization: `Bearer ${f.b.apiKey}` }],
      ['oauth', { authorization: `Bearer ${f.bOauth}` }],
    ];
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  return [
    ['key', bearer(f.b.apiKey)],
    ['oauth', bearer(f.bOauth)],
    ['legacy', bearer(f.bLegacy)],
  ];
}

/** An outsider's refusal by the access rule of the route (as shared/policy/src/access.ts words it). */
function outsiderRefusal(route: AnyRoute): Refusal {
  if (route.auth === 'admin') return ADMIN_ONLY;
  const access = route.access;
  if (!access) throw new Error(`${routeKey(route)}: the case names no refusal and the route no access rule`);
  // A route a member may use on their own membership (leaving) admits that role first.
  const role = route.ownMembershipRole ?? access.minimumRole;
  return forbidden(
    access.level === 'team'
      ? `requires team role ${role} or organization role ADMIN; caller is not a member of the team`
      : `requires organization role ${role}; caller is not a member of the organization`,
  );
}

/** OAuth tokens stop at the credential check on routes that name no scope. */
function expectedFor(route: AnyRoute, c: Case, credential: Credential): Refusal {
  if (route.auth === 'client-secret' && credential !== 'secret') return SECRET_MISSING;
  const oauth = credential === 'oauth' || credential === 'legacy';
  if (oauth && (route.scope === undefined || route.scope === null))
    return forbidden(NO_SCOPE_ENDPOINT_MESSAGE);
  return c.refusal ?? outsiderRefusal(route);
}

function assertRefusal(
  t: ExecutionContext,
  response: ApiResponse,
  expected: Refusal,
  path: string,
  label: string,
): void {
  t.is(response.status, expected.status, `${label}: ${JSON.stringify(response.body)}`);
  const body = response.body as Json;
  t.deepEqual(Object.keys(body).sort(), ['error', 'path', 'status', 'timestamp'], label);
  t.is(body.status, 'error', label);
  t.is(body.path, path.split('?')[0], label);
  const code = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound' }[expected.status];
  t.is(body.error.code, code, label);
  t.is(body.error.message, expected.message, label);
  t.false(JSON.stringify(body).includes(MARK), `${label}: nothing of A's object`);
}

test('every route with an id has a cross-owner case or is listed as not owner-scoped, with why', (t) => {
  const keys = new Set(routes.map(routeKey));
  const withIds = routes.filter((route) => idsOf(route).length > 0).map(routeKey);
  const missing = withIds.filter((key) => !(key in CASES) && !(key in NOT_OWNER_SCOPED));
  t.deepEqual(missing, [], 'routes with an id and no cross-owner case');
  const stale = [...Object.keys(CASES), ...Object.keys(NOT_OWNER_SCOPED)].filter((key) => !keys.has(key));
  t.deepEqual(stale, [], 'cases of routes the table no longer has');
  const both = Object.keys(CASES).filter((key) => key in NOT_OWNER_SCOPED);
  t.deepEqual(both, []);
});

for (const route of routes) {
  const key = routeKey(route);
  const c = CASES[key];
  if (!c) continue;
  test.serial(`B is refused A's object: ${key}`, async (t) => {
    const made = await c.make();
    const before = made.view ? await made.view() : undefined;
    const path = `/v2${fillPath(route, made.params)}${made.query ? `?${made.query}` : ''}`;
    for (const [credential, headers] of credentialsFor(c)) {
      const expected = expectedFor(route, c, credential);
      const response = await call(route.method, path, {
        headers,
        ...(made.body === undefined ? {} : { body: made.body }),
      });
      assertRefusal(t, response, expected, path, credential);
      if (expected.status === 404) {
        // The same answer as for an object that does not exist: its existence does not show.
        const unknown = `/v2${unknownPath(route, made.params)}`;
        const none = await call(route.method, unknown, {
          headers,
          ...(made.body === undefined ? {} : { body: made.body }),
        });
        t.deepEqual(
          [none.status, none.body?.error?.code, none.body?.error?.message],
          [response.status, response.body.error.code, response.body.error.message],
          `${credential}: like an unknown id`,
        );
      }
    }
    if (route.mcp) {
      const args = { ...paramValues(route, made.params), ...(made.body as object | undefined) };
      const answer = await callToolRaw(`${world.system.url}/mcp`, f.bMcp, route.mcp.name, args);
      t.is(answer.status, 200, 'mcp');
      t.true(answer.body.result?.isError, `mcp: ${JSON.stringify(answer.body)}`);
      const expected = expectedFor(route, c, 'oauth').message;
      t.deepEqual(answer.body.result.content, [{ type: 'text', text: expected }], 'mcp');
      t.false(JSON.stringify(answer.body).includes(MARK), "mcp: nothing of A's object");
    }
    if (made.view) t.deepEqual(await made.view(), before, "A's object is unchanged");
  });
}

// ---------------------------------------------------------------------------------------------
// B's own organization, team or client, naming A's object under it

/** Path parameters that name where the caller acts (B's own here); the ids after them are A's. */
const PARENTS = new Set(['orgId', 'teamId', 'clientId']);
/** Path parameters that are not object ids. */
const NOT_IDS = new Set(['permission']);

/** Routes where B acts in B's own parent and names A's object below it: every split of the path. */
function splitsOf(route: AnyRoute): number[] {
  if (route.auth === 'admin') return [];
  const names = pathParams(route).filter((name) => !NOT_IDS.has(name));
  const splits: number[] = [];
  for (let k = 1; k < names.length && PARENTS.has(names[k - 1]!); k++) splits.push(k);
  return splits;
}

/** The answer to B naming A's object: what an id of nothing under B's parent gets. */
const NOT_FOUND_UNDER: Record<string, string> = {
  teamId: 'Team not found',
  membershipId: 'Membership not found',
  roleId: 'Role not found',
  eventTypeId: 'Event type not found',
  secretId: 'Client secret not found',
  userId: 'Managed user not found',
};

/** Bodies the nested writes need to pass validation (they must be refused for the id, not the body). */
const NESTED_BODIES: Record<string, unknown> = {
  'POST /organizations/:orgId/teams/:teamId/memberships': { email: 'nested@example.com', role: 'MEMBER' },
  'PATCH /organizations/:orgId/memberships/:membershipId': { role: 'ADMIN' },
  'PATCH /organizations/:orgId/teams/:teamId/memberships/:membershipId': { role: 'ADMIN' },
  'PATCH /teams/:teamId/memberships/:membershipId': { role: 'ADMIN' },
  'PATCH /organizations/:orgId/roles/:roleId': { name: 'Renamed' },
  'POST /organizations/:orgId/roles/:roleId/permissions': { permissions: ['team.read'] },
  'PUT /organizations/:orgId/roles/:roleId/permissions': { permissions: ['team.read'] },
  'DELETE /organizations/:orgId/roles/:roleId/permissions': { permissions: ['booking.read'] },
  'PATCH /oauth-clients/:clientId/users/:userId': { name: 'Renamed' },
};

/** Everything of A's that a nested route could reach, read straight from the database. */
const snapshotOfA = async () =>
  Promise.all([
    orgRows(),
    roleRows(),
    rows('event_types', { id: children.teamEventTypeId })(),
    rows('oauth_client_secrets', { client_id: f.aClient.client.id })(),
    rows('users', { id: children.managedUserId })(),
  ]);

function nestedValues(
  route: AnyRoute,
  split: number,
): { mine: Record<string, string | number>; unknown: Record<string, string | number> } {
  const names = pathParams(route);
  const a = paramValues(route, {
    clientId: f.aClient.client.id,
    eventTypeId: children.teamEventTypeId,
    secretId: children.secretId,
    userId: children.managedUserId,
  });
  const b: Record<string, string | number> = {
    orgId: f.bOrgId,
    teamId: f.bTeamId,
    clientId: f.bClient.client.id,
  };
  const mine: Record<string, string | number> = {};
  const unknown: Record<string, string | number> = {};
  names.forEach((name, index) => {
    const value = index < split && !NOT_IDS.has(name) ? b[name]! : a[name]!;
    mine[name] = value;
    unknown[name] = index === split ? (typeof value === 'number' ? 2_000_000_000 : `${value}x`) : value;
  });
  return { mine, unknown };
}

for (const route of routes) {
  for (const split of splitsOf(route)) {
    const names = pathParams(route);
    const ours = names.slice(0, split).join(', ');
    const key = routeKey(route);
    test.serial(`B names A's object under B's own ${ours}: ${key}`, async (t) => {
      const { mine, unknown } = nestedValues(route, split);
      const path = `/v2${fillPath(route, mine)}`;
      const nothing = `/v2${fillPath(route, unknown)}`;
      const body = NESTED_BODIES[key];
      const before = await snapshotOfA();
      const expected: Refusal = notFound(NOT_FOUND_UNDER[names[split]!] ?? `no message for ${names[split]}`);
      const c: Case = {
        make: async () => ({ params: {} }),
        refusal: expected,
        secretOnly: route.auth === 'client-secret',
      };
      for (const [credential, headers] of credentialsFor(c)) {
        const wanted = expectedFor(route, c, credential);
        const response = await call(route.method, path, { headers, ...(body === undefined ? {} : { body }) });
        assertRefusal(t, response, wanted, path, credential);
        const none = await call(route.method, nothing, { headers, ...(body === undefined ? {} : { body }) });
        t.deepEqual(
          [none.status, none.body?.error?.code, none.body?.error?.message],
          [response.status, response.body.error.code, response.body.error.message],
          `${credential}: like an unknown id`,
        );
      }
      t.deepEqual(await snapshotOfA(), before, "A's objects are unchanged");
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Ids in bodies and queries: B acts where B may, the id names A's object

interface FieldCase {
  /** Path parameters (B's own), body and query naming A's object. */
  make: () => Promise<{ params: Record<string, string | number>; body?: unknown; queries?: string[] }>;
  /** The answer B gets with an API key: a refusal, or a success that shows nothing of A's. */
  answer: (t: ExecutionContext, response: ApiResponse, path: string, label: string) => void;
  /** What must not change (A's side). */
  view?: () => Promise<unknown>;
}

/** Id fields covered elsewhere or not owner-scoped, with why. */
const FIELDS_COVERED: Record<string, string> = {
  'POST /oauth-clients body.organizationId':
    "the route case above: B registers a client for A's organization",
  'POST /admin/organizations/:orgId/memberships body.userId':
    'admin API: a service administrator adds any user; B gets 403 in the route case above',
  'POST /admin/organizations body.ownerUserId':
    'admin API: a service administrator names any owner; B gets 403 in the route case above',
  'GET /admin/audit-events query.actorApiKeyId query.actorClientId query.targetId':
    'admin API: the whole service log; B gets 403 in the route case above',
};

const refuses =
  (refusal: Refusal) => (t: ExecutionContext, response: ApiResponse, path: string, label: string) =>
    assertRefusal(t, response, refusal, path, label);

const membershipByUserId = (parent: Record<string, number>): FieldCase => ({
  make: async () => ({ params: parent, body: { userId: f.a.id, role: 'MEMBER' } }),
  answer: refuses(notFound('User not found')),
  view: () => bMemberships(),
});

const bMemberships = () =>
  Promise.all([
    rows('memberships', { organization_id: f.bOrgId })(),
    rows('memberships', { team_id: f.bTeamId })(),
  ]);

const membershipCustomRole = (params: () => Record<string, number>): FieldCase => ({
  make: async () => ({ params: params(), body: { customRoleId: f.roleId } }),
  answer: refuses(notFound('Role not found')),
  view: () => bMemberships(),
});

const FIELD_CASES: Record<string, FieldCase> = {
  'POST /teams/:teamId/event-types body.hostUserIds': {
    make: async () => ({
      params: { teamId: f.bTeamId },
      body: { title: 'Theirs', slug: `theirs-${uniqueTag()}`, lengthInMinutes: 30, hostUserIds: [f.a.id] },
    }),
    answer: (t, response, path, label) => {
      t.is(response.status, 400, label);
      t.is(response.body.error.message, `hostUserIds must be accepted members of the team: ${f.a.id}`, label);
      t.is(response.body.path, path, label);
    },
    view: () => rows('event_types', { team_id: f.bTeamId })(),
  },
  'PATCH /calendars/:connectionId body.calendars[].id': {
    make: async () => {
      const mine = await saveCalendarConnection(knex(), {
        userId: f.b.id,
        provider: 'caldav',
        account: `b-${uniqueTag()}`,
        credentialsSealed: new CredentialsBox(world.system.config.encryptionKey).seal({
          serverUrl: 'https://dav.example.com/',
          username: 'b',
          password: 'pw',
        }),
        calendars: [
          { externalId: 'https://dav.example.com/b/work/', name: 'B work', readOnly: false, primary: true },
        ],
      });
      const theirs = await connectionOfA();
      const [calendar] = await knex()('connected_calendars').where({ connection_id: theirs });
      return {
        params: { connectionId: mine.id },
        body: { calendars: [{ id: Number(calendar.id), checkForConflicts: false, isDestination: true }] },
      };
    },
    answer: refuses(notFound('Calendar not found')),
    view: () => read('/calendars', f.a.apiKey),
  },
  'POST /organizations/:orgId/memberships body.userId': membershipByUserId({}),
  'POST /organizations/:orgId/teams/:teamId/memberships body.userId': membershipByUserId({}),
  'POST /teams/:teamId/memberships body.userId': membershipByUserId({}),
  'PATCH /organizations/:orgId/memberships/:membershipId body.customRoleId': membershipCustomRole(() => ({
    membershipId: f.bOrgMembershipId,
  })),
  'PATCH /organizations/:orgId/teams/:teamId/memberships/:membershipId body.customRoleId':
    membershipCustomRole(() => ({ membershipId: f.bTeamMembershipId })),
  'PATCH /teams/:teamId/memberships/:membershipId body.customRoleId': membershipCustomRole(() => ({
    membershipId: f.bTeamMembershipId,
  })),
  'GET /organizations/:orgId/audit-events query.actorApiKeyId query.actorClientId query.targetId': {
    make: async () => {
      // Something in A's organization's log, by A's key and about A's member.
      const invited = await call('POST', `/v2/organizations/${f.orgId}/memberships`, {
        token: f.a.apiKey,
        body: { email: `audited-${uniqueTag()}@example.com`, role: 'MEMBER' },
      });
      if (invited.status !== 201)
        throw new Error(`invite: ${invited.status} ${JSON.stringify(invited.body)}`);
      const [event] = await knex()('audit_log')
        .where({ organization_id: f.orgId })
        .orderBy('id', 'desc')
        .limit(1);
      const filters = [
        `actor=${f.a.id}`,
        `actorApiKeyId=${event.actor_api_key_id}`,
        `targetId=${encodeURIComponent(String(event.subject_id))}`,
        `actorClientId=${encodeURIComponent(f.aClient.client.id)}`,
      ];
      // One filter at a time: together they could miss an event that one of them alone finds.
      return { params: {}, queries: filters };
    },
    answer: (t, response, _path, label) => {
      t.is(response.status, 200, label);
      t.deepEqual(response.body.data, [], `${label}: nothing of A's organization`);
    },
  },
};

/** Where B acts: B's own organization, team and memberships. */
function fieldParams(params: Record<string, string | number>): Record<string, string | number> {
  return { orgId: f.bOrgId, teamId: f.bTeamId, ...params };
}

test('every id field of a body or query has a case or is covered elsewhere, with why', (t) => {
  const wanted = routes
    .filter((route) => !(routeKey(route) in NOT_OWNER_SCOPED) && idFieldsOf(route).length > 0)
    .map((route) => `${routeKey(route)} ${idFieldsOf(route).join(' ')}`);
  const listed = new Set([...Object.keys(FIELD_CASES), ...Object.keys(FIELDS_COVERED)]);
  t.deepEqual(
    wanted.filter((key) => !listed.has(key)),
    [],
  );
  t.deepEqual(
    [...listed].filter((key) => !wanted.includes(key)),
    [],
  );
});

for (const route of routes) {
  const fields = idFieldsOf(route);
  const key = `${routeKey(route)} ${fields.join(' ')}`;
  const c = FIELD_CASES[key];
  if (!c) continue;
  test.serial(`B names A's object in ${fields.join(', ')}: ${routeKey(route)}`, async (t) => {
    const made = await c.make();
    const before = c.view ? await c.view() : undefined;
    const path = `/v2${fillPath(route, fieldParams(made.params))}`;
    const probe: Case = { make: async () => ({ params: {} }), refusal: notFound('unused') };
    for (const full of made.queries?.map((query) => `${path}?${query}`) ?? [path]) {
      for (const [credential, headers] of credentialsFor(probe)) {
        const label = `${credential} ${full}`;
        const response = await call(route.method, full, {
          headers,
          ...(made.body === undefined ? {} : { body: made.body }),
        });
        if (credential !== 'key' && (route.scope === undefined || route.scope === null)) {
          assertRefusal(t, response, forbidden(NO_SCOPE_ENDPOINT_MESSAGE), path, label);
        } else {
          c.answer(t, response, path, label);
        }
        t.false(JSON.stringify(response.body).includes(MARK), `${label}: nothing of A's object`);
      }
    }
    if (c.view) t.deepEqual(await c.view(), before, "A's object is unchanged");
  });
}

// ---------------------------------------------------------------------------------------------
// An object both use

/** A token of a grant of `userId` to `clientId`: the grant is what the owner index holds. */
async function grantedToken(userId: number, clientId: string): Promise<string> {
  const grantId = `grant-${uniqueTag()}`;
  const iat = Math.floor(Date.now() / 1000);
  await world
    .store()
    .upsert(
      'Grant',
      grantId,
      { kind: 'Grant', jti: grantId, accountId: String(userId), clientId, iat, exp: iat + 3600 },
      3600,
    );
  return createTestAccessToken(world.system.stores, { userId, clientId, grantId, scopes: ['PROFILE_READ'] });
}

test.serial("B disconnecting A's client from B's account ends B's tokens for it, never A's", async (t) => {
  const clientId = (await clientOfA()).client.id;
  const aToken = await grantedToken(f.a.id, clientId);
  const bToken = await grantedToken(f.b.id, clientId);
  const path = `/v2/me/connected-apps/${encodeURIComponent(clientId)}`;
  const response = await call('DELETE', path, { token: f.b.apiKey });
  t.is(response.status, 204);
  t.is((await call('GET', '/v2/me', { token: bToken })).status, 401, "B's token for the client ended");
  t.is((await call('GET', '/v2/me', { token: aToken })).status, 200, "A's token for the client still works");
  const again = await call('DELETE', path, { token: f.b.apiKey });
  assertRefusal(t, again, notFound('Connected app not found'), path, 'again');
});
