import test from 'ava';
import { createTestAccessToken } from '../support/tokens.ts';
import {
  insertCustomRole,
  insertMemberships,
  insertOrganization,
  insertTeam,
  insertUsers,
  type RoleName,
} from '../support/factories.ts';
import { pool } from '../support/http.ts';
import { setUpWorld as setUpApiSystem } from '../support/world.ts';

/**
 * The access matrix of issue 4: {API key, OAuth token with each relevant scope, legacy token} x
 * {org owner, org admin, org member with and without team membership, team owner, team admin,
 * team member, outsider} x {PBAC off, PBAC on with the permission, PBAC on without it} x every
 * membership and role endpoint. Each case asserts the exact status (and, for scope refusals, the
 * fixed message and header).
 *
 * The expectation is written out below from the access rules (not from the code): roles rank
 * OWNER > ADMIN > MEMBER; organization endpoints need the organization role; team endpoints
 * need the team role, or organization ADMIN/OWNER; with PBAC on, a membership whose custom role
 * holds the endpoint's permission passes (an organization membership's role applies in all the
 * organization's teams, a team membership's in that team); with PBAC off permissions count for
 * nothing (personas hold the permissions then too, to prove it). Mutations target plain MEMBER
 * memberships and MEMBER roles, so the role-assignment rules (tested in membership-rules.test.ts)
 * never decide a matrix case. Consent (memberships and invitations): an organization's
 * POST invites (by e-mail here), `accepted` is never set by anyone but the invitee (403 for every
 * persona), and organization memberships are read by ADMIN or `organization.listMembers`. Leaving
 * and the no-escalation rule are tables at the end of this file: each case makes memberships and
 * roles of its own (they consume them, so the personas above cannot be their callers).
 */

type Persona =
  | 'orgOwner'
  | 'orgAdmin'
  | 'orgMemberWithTeam'
  | 'orgMemberNoTeam'
  | 'teamOwner'
  | 'teamAdmin'
  | 'teamMember'
  | 'outsider';
const PERSONAS: readonly Persona[] = [
  'orgOwner',
  'orgAdmin',
  'orgMemberWithTeam',
  'orgMemberNoTeam',
  'teamOwner',
  'teamAdmin',
  'teamMember',
  'outsider',
];
const ORG_ROLE: Partial<Record<Persona, RoleName>> = {
  orgOwner: 'OWNER',
  orgAdmin: 'ADMIN',
  orgMemberWithTeam: 'MEMBER',
  orgMemberNoTeam: 'MEMBER',
};
const TEAM_ROLE: Partial<Record<Persona, RoleName>> = {
  orgMemberWithTeam: 'MEMBER',
  teamOwner: 'OWNER',
  teamAdmin: 'ADMIN',
  teamMember: 'MEMBER',
};

type Pbac = 'off' | 'on-with-permission' | 'on-without-permission';
const PBAC_STATES: readonly Pbac[] = ['off', 'on-with-permission', 'on-without-permission'];

const MEMBERSHIP_AND_ROLE_PERMISSIONS = [
  'team.invite',
  'team.remove',
  'team.listMembers',
  'team.changeMemberRole',
  'organization.invite',
  'organization.remove',
  'organization.listMembers',
  'organization.changeMemberRole',
  'role.create',
  'role.read',
  'role.update',
  'role.delete',
];

const RANK: Record<RoleName, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };
const atLeast = (role: RoleName | undefined, minimum: RoleName) =>
  role !== undefined && RANK[role] >= RANK[minimum];

/** Does the persona pass the endpoint's role / PBAC requirement? (The access rules, spelled out.) */
function passesAccess(
  level: 'organization' | 'team',
  minimum: RoleName,
  persona: Persona,
  pbac: Pbac,
): boolean {
  const orgRole = ORG_ROLE[persona];
  const teamRole = TEAM_ROLE[persona];
  if (pbac === 'on-with-permission') {
    // The permission is held on every membership the persona has.
    if (level === 'organization' ? orgRole !== undefined : orgRole !== undefined || teamRole !== undefined)
      return true;
  }
  if (level === 'organization') return atLeast(orgRole, minimum);
  return atLeast(orgRole, 'ADMIN') || atLeast(teamRole, minimum);
}

type Credential = { kind: 'apiKey' } | { kind: 'legacy' } | { kind: 'oauth'; scope: string };

/** One organization, team and set of personas per PBAC state. */
interface World {
  pbac: Pbac;
  orgId: number;
  teamId: number;
  /** persona -> credential label -> token */
  tokens: Record<Persona, Record<string, string>>;
  /** The shared targets of the read and idempotent-write cases. */
  orgMembershipId: number;
  teamMembershipId: number;
  roleId: string;
}

const credentialLabel = (c: Credential) => (c.kind === 'oauth' ? `oauth:${c.scope}` : c.kind);

interface Endpoint {
  name: string;
  level: 'organization' | 'team';
  minimumRole: RoleName;
  /** Scope the route requires; null = names no scope. */
  scope: string | null;
  /** The OAuth scopes tried, each with whether it satisfies the route (ORG_ implies TEAM_; nothing else). */
  tokenScopes: Array<[string, boolean]>;
  /** Builds one request (preparing a fresh target when the case needs one). */
  request(world: World, index: number): Promise<{ method: string; path: string; body?: unknown }>;
  okStatus: number;
}

const { system, call } = setUpApiSystem(test);
const worlds = new Map<Pbac, World>();

const ALL_SCOPES = [
  'TEAM_MEMBERSHIP_READ',
  'TEAM_MEMBERSHIP_WRITE',
  'ORG_MEMBERSHIP_READ',
  'ORG_MEMBERSHIP_WRITE',
  'ORG_PROFILE_WRITE',
];

async function buildWorld(pbac: Pbac): Promise<World> {
  const knex = system.stores.db.knex;
  const orgId = await insertOrganization(knex, { pbacEnabled: pbac !== 'off' });
  const teamId = await insertTeam(knex, orgId);
  const customRoleId = await insertCustomRole(
    knex,
    orgId,
    pbac === 'on-without-permission' ? ['booking.read', 'eventType.read'] : MEMBERSHIP_AND_ROLE_PERMISSIONS,
  );
  const users = await insertUsers(knex, PERSONAS.length + 2);
  const byPersona = Object.fromEntries(PERSONAS.map((p, i) => [p, users[i]!])) as Record<
    Persona,
    (typeof users)[0]
  >;
  const rows = PERSONAS.flatMap((persona) => {
    const userId = byPersona[persona].id;
    const out = [];
    const orgRole = ORG_ROLE[persona];
    const teamRole = TEAM_ROLE[persona];
    if (orgRole) out.push({ userId, organizationId: orgId, role: orgRole, customRoleId });
    if (teamRole) out.push({ userId, teamId, role: teamRole, customRoleId });
    return out;
  });
  await insertMemberships(knex, rows);
  // Shared targets: a MEMBER of the organization who is also a MEMBER of the team.
  const target = users[PERSONAS.length]!;
  const [orgMembershipId, teamMembershipId] = await insertMemberships(knex, [
    { userId: target.id, organizationId: orgId, role: 'MEMBER' },
    { userId: target.id, teamId, role: 'MEMBER' },
  ]);
  const roleId = await insertCustomRole(knex, orgId, ['role.read']);
  const tokens = {} as Record<Persona, Record<string, string>>;
  for (const persona of PERSONAS) {
    const user = byPersona[persona];
    const set: Record<string, string> = { apiKey: user.apiKey };
    set['legacy'] = await createTestAccessToken(system.stores, {
      userId: user.id,
      legacy: true,
      scopes: ['READ_PROFILE'],
    });
    for (const scope of ALL_SCOPES) {
      set[`oauth:${scope}`] = await createTestAccessToken(system.stores, {
        userId: user.id,
        scopes: [scope],
      });
    }
    tokens[persona] = set;
  }
  return {
    pbac,
    orgId,
    teamId,
    tokens,
    orgMembershipId: orgMembershipId!,
    teamMembershipId: teamMembershipId!,
    roleId,
  };
}

test.before(async () => {
  for (const pbac of PBAC_STATES) {
    const world = await buildWorld(pbac);
    worlds.set(pbac, world);
    fresh.set(pbac, await prepareFresh(world));
  }
});

/**
 * Fresh targets for the cases that consume one (create: a user; delete: a membership or role),
 * made in bulk before the requests run. Each endpoint runs 40 cases per world (32 for roles).
 */
interface Fresh {
  users: number[];
  /** Addresses of users with a pending invitation to the organization (by id). */
  orgInvitees: string[];
  orgMemberships: number[];
  teamMemberships: number[];
  roles: string[];
  /** Custom roles without permissions, one per PATCH case of each membership family. */
  patchRoles: string[];
}
const fresh = new Map<Pbac, Fresh>();

async function prepareFresh(world: World): Promise<Fresh> {
  const knex = system.stores.db.knex;
  const perEndpoint = 40;
  const created = await insertUsers(knex, perEndpoint * 7, { withApiKeys: false });
  const emails = new Map(created.map((u) => [u.id, u.email]));
  const users = created.map((u) => u.id);
  const take = (n: number) => users.splice(0, n);
  const plain = take(perEndpoint);
  const orgMemberUsers = take(perEndpoint * 2);
  const forOrgMemberships = take(perEndpoint);
  const forTeamMemberships = take(perEndpoint * 2);
  await insertMemberships(
    knex,
    orgMemberUsers.map((userId) => ({
      userId,
      organizationId: world.orgId,
      role: 'MEMBER',
      accepted: false,
    })),
  );
  const orgMemberships = await insertMemberships(
    knex,
    forOrgMemberships.map((userId) => ({ userId, organizationId: world.orgId, role: 'MEMBER' })),
  );
  const teamMemberships = await insertMemberships(
    knex,
    forTeamMemberships.map((userId) => ({ userId, teamId: world.teamId, role: 'MEMBER' })),
  );
  const roles: string[] = [];
  for (let i = 0; i < perEndpoint; i++) roles.push(await insertCustomRole(knex, world.orgId, []));
  const patchRoles: string[] = [];
  for (let i = 0; i < perEndpoint * MEMBERSHIP_FAMILIES.length; i++)
    patchRoles.push(await insertCustomRole(knex, world.orgId, []));
  const orgInvitees = orgMemberUsers.map((userId) => emails.get(userId)!);
  return { users: plain, orgInvitees, orgMemberships, teamMemberships, roles, patchRoles };
}

function next<T>(list: T[]): T {
  const value = list.shift();
  if (value === undefined) throw new Error('the matrix ran out of prepared targets');
  return value;
}

const freshOrgInvitee = async (world: World) => next(fresh.get(world.pbac)!.orgInvitees);
const freshMembership = async (world: World, parent: 'organization' | 'team') =>
  next(
    parent === 'organization'
      ? fresh.get(world.pbac)!.orgMemberships
      : fresh.get(world.pbac)!.teamMemberships,
  );
const freshRole = async (world: World) => next(fresh.get(world.pbac)!.roles);
let invited = 0;

const MEMBERSHIP_FAMILIES = [
  {
    family: 'org memberships',
    level: 'organization' as const,
    base: (w: World) => `/v2/organizations/${w.orgId}/memberships`,
    shared: (w: World) => w.orgMembershipId,
    read: 'ORG_MEMBERSHIP_READ',
    write: 'ORG_MEMBERSHIP_WRITE',
    readScopes: [
      ['ORG_MEMBERSHIP_READ', true],
      ['ORG_MEMBERSHIP_WRITE', false],
      ['TEAM_MEMBERSHIP_READ', false],
    ] as Array<[string, boolean]>,
    writeScopes: [
      ['ORG_MEMBERSHIP_WRITE', true],
      ['ORG_MEMBERSHIP_READ', false],
      ['TEAM_MEMBERSHIP_WRITE', false],
    ] as Array<[string, boolean]>,
  },
  ...(['org team memberships', 'team memberships'] as const).map((family) => ({
    family,
    level: 'team' as const,
    base: (w: World) =>
      family === 'team memberships'
        ? `/v2/teams/${w.teamId}/memberships`
        : `/v2/organizations/${w.orgId}/teams/${w.teamId}/memberships`,
    shared: (w: World) => w.teamMembershipId,
    read: 'TEAM_MEMBERSHIP_READ',
    write: 'TEAM_MEMBERSHIP_WRITE',
    readScopes: [
      ['TEAM_MEMBERSHIP_READ', true],
      ['ORG_MEMBERSHIP_READ', true],
      ['TEAM_MEMBERSHIP_WRITE', false],
    ] as Array<[string, boolean]>,
    writeScopes: [
      ['TEAM_MEMBERSHIP_WRITE', true],
      ['ORG_MEMBERSHIP_WRITE', true],
      ['TEAM_MEMBERSHIP_READ', false],
    ] as Array<[string, boolean]>,
  })),
];

const NO_SCOPE: Array<[string, boolean]> = [
  ['ORG_MEMBERSHIP_WRITE', false],
  ['ORG_PROFILE_WRITE', false],
];

const ENDPOINTS: Endpoint[] = [
  ...MEMBERSHIP_FAMILIES.flatMap((f): Endpoint[] => [
    {
      name: `POST ${f.family}`,
      level: f.level,
      minimumRole: 'ADMIN',
      scope: f.write,
      tokenScopes: f.writeScopes,
      okStatus: 201,
      // An organization invites (by e-mail here: always allowed); a team of the organization
      // invites the organization's pending members (by e-mail: an id of theirs is no shared
      // membership, so it is 404 for anyone).
      request: async (w) => ({
        method: 'POST',
        path: f.base(w),
        body:
          f.level === 'organization'
            ? { email: `matrix-${w.pbac}-${++invited}@example.com`, role: 'member' }
            : { email: await freshOrgInvitee(w), role: 'member', accepted: true },
      }),
    },
    ...(f.level === 'organization'
      ? [
          {
            // Nobody accepts on the invitee's behalf: refused for everyone (403 either way).
            name: `POST ${f.family} accepted:true`,
            level: f.level,
            minimumRole: 'ADMIN' as const,
            scope: f.write,
            tokenScopes: f.writeScopes,
            okStatus: 403,
            request: async (w: World) => ({
              method: 'POST',
              path: f.base(w),
              body: {
                email: `matrix-accepted-${w.pbac}-${++invited}@example.com`,
                role: 'member',
                accepted: true,
              },
            }),
          },
        ]
      : []),
    {
      name: `GET ${f.family}`,
      level: f.level,
      // Organization memberships are read by ADMIN (or organization.listMembers); teams' by members.
      minimumRole: f.level === 'organization' ? 'ADMIN' : 'MEMBER',
      scope: f.read,
      tokenScopes: f.readScopes,
      okStatus: 200,
      request: async (w) => ({ method: 'GET', path: `${f.base(w)}?skip=0&take=5` }),
    },
    {
      name: `GET one of ${f.family}`,
      level: f.level,
      minimumRole: f.level === 'organization' ? 'ADMIN' : 'MEMBER',
      scope: f.read,
      tokenScopes: f.readScopes,
      okStatus: 200,
      request: async (w) => ({ method: 'GET', path: `${f.base(w)}/${f.shared(w)}` }),
    },
    {
      name: `PATCH ${f.family}`,
      level: f.level,
      minimumRole: 'ADMIN',
      scope: f.write,
      tokenScopes: f.writeScopes,
      okStatus: 200,
      // A real change (a custom role without permissions, new each time, so anyone may assign it):
      // a PATCH that changes nothing also needs the read right (membership-consent.test.ts).
      request: async (w) => ({
        method: 'PATCH',
        path: `${f.base(w)}/${f.shared(w)}`,
        body: { customRoleId: next(fresh.get(w.pbac)!.patchRoles) },
      }),
    },
    {
      // `accepted` is the invitee's: un-accepting someone is refused for everyone.
      name: `PATCH ${f.family} accepted:false`,
      level: f.level,
      minimumRole: 'ADMIN',
      scope: f.write,
      tokenScopes: f.writeScopes,
      okStatus: 403,
      request: async (w) => ({
        method: 'PATCH',
        path: `${f.base(w)}/${f.shared(w)}`,
        body: { accepted: false },
      }),
    },
    {
      name: `DELETE ${f.family}`,
      level: f.level,
      minimumRole: 'ADMIN',
      scope: f.write,
      tokenScopes: f.writeScopes,
      okStatus: 200,
      request: async (w) => ({ method: 'DELETE', path: `${f.base(w)}/${await freshMembership(w, f.level)}` }),
    },
  ]),
  ...(
    [
      [
        'POST roles',
        'ADMIN',
        201,
        async (w: World, i: number) => ({
          method: 'POST',
          path: `/v2/organizations/${w.orgId}/roles`,
          body: { name: `Matrix role ${i}`, permissions: ['role.read'] },
        }),
      ],
      [
        'GET roles',
        'MEMBER',
        200,
        async (w: World) => ({ method: 'GET', path: `/v2/organizations/${w.orgId}/roles` }),
      ],
      [
        'GET one role',
        'MEMBER',
        200,
        async (w: World) => ({ method: 'GET', path: `/v2/organizations/${w.orgId}/roles/${w.roleId}` }),
      ],
      [
        'PATCH role',
        'ADMIN',
        200,
        async (w: World) => ({
          method: 'PATCH',
          path: `/v2/organizations/${w.orgId}/roles/${w.roleId}`,
          body: { description: 'matrix' },
        }),
      ],
      [
        'DELETE role',
        'ADMIN',
        200,
        async (w: World) => ({
          method: 'DELETE',
          path: `/v2/organizations/${w.orgId}/roles/${await freshRole(w)}`,
        }),
      ],
      [
        'POST role permissions',
        'ADMIN',
        201,
        async (w: World) => ({
          method: 'POST',
          path: `/v2/organizations/${w.orgId}/roles/${w.roleId}/permissions`,
          body: { permissions: ['role.read', 'team.read'] },
        }),
      ],
      [
        'GET role permissions',
        'MEMBER',
        200,
        async (w: World) => ({
          method: 'GET',
          path: `/v2/organizations/${w.orgId}/roles/${w.roleId}/permissions`,
        }),
      ],
      [
        'PUT role permissions',
        'ADMIN',
        200,
        async (w: World) => ({
          method: 'PUT',
          path: `/v2/organizations/${w.orgId}/roles/${w.roleId}/permissions`,
          body: { permissions: ['role.read', 'team.read'] },
        }),
      ],
      [
        'DELETE role permissions',
        'ADMIN',
        200,
        async (w: World) => ({
          method: 'DELETE',
          path: `/v2/organizations/${w.orgId}/roles/${w.roleId}/permissions`,
          body: { permissions: ['schedule.update'] },
        }),
      ],
      [
        'DELETE one role permission',
        'ADMIN',
        200,
        async (w: World) => ({
          method: 'DELETE',
          path: `/v2/organizations/${w.orgId}/roles/${w.roleId}/permissions/booking.update`,
        }),
      ],
    ] as const
  ).map(
    ([name, minimumRole, okStatus, request]): Endpoint => ({
      name,
      level: 'organization',
      minimumRole,
      scope: null,
      tokenScopes: NO_SCOPE,
      okStatus,
      request,
    }),
  ),
];

interface Case {
  pbac: Pbac;
  persona: Persona;
  credential: Credential;
}

function casesOf(endpoint: Endpoint): Case[] {
  const credentials: Credential[] = [
    { kind: 'apiKey' },
    { kind: 'legacy' },
    ...endpoint.tokenScopes.map(([scope]): Credential => ({ kind: 'oauth', scope })),
  ];
  return PBAC_STATES.flatMap((pbac) =>
    PERSONAS.flatMap((persona) => credentials.map((credential) => ({ pbac, persona, credential }))),
  );
}

type Expected = { status: number; message?: string; challenge?: string };

/** Every 403 names the API's protected resource metadata (RFC 9728). */
const resourceMetadata = () => `resource_metadata="${system.url}/.well-known/oauth-protected-resource"`;

function expected(endpoint: Endpoint, c: Case): Expected {
  // Endpoints naming no scope refuse every OAuth token, legacy included.
  if (c.credential.kind !== 'apiKey' && endpoint.scope === null) {
    return {
      status: 403,
      message: 'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
      challenge: `Bearer error="insufficient_scope", ${resourceMetadata()}`,
    };
  }
  if (c.credential.kind === 'oauth') {
    const scope = c.credential.scope;
    const satisfies = endpoint.tokenScopes.find(([s]) => s === scope)![1];
    if (!satisfies) {
      return {
        status: 403,
        message: `insufficient_scope: token does not have the required scopes. Required: ${endpoint.scope}. Token has: ${scope}`,
        challenge: `Bearer error="insufficient_scope", scope="${endpoint.scope}", ${resourceMetadata()}`,
      };
    }
  }
  return passesAccess(endpoint.level, endpoint.minimumRole, c.persona, c.pbac)
    ? { status: endpoint.okStatus }
    : { status: 403 };
}

for (const endpoint of ENDPOINTS) {
  test(`matrix: ${endpoint.name}`, async (t) => {
    const cases = casesOf(endpoint);
    const results = await pool(cases, 6, async (c, index) => {
      const world = worlds.get(c.pbac)!;
      const request = await endpoint.request(world, index);
      const token = world.tokens[c.persona][credentialLabel(c.credential)];
      const response = await call(request.method, request.path, { token, body: request.body });
      return { c, response };
    });
    const mismatches: string[] = [];
    for (const { c, response } of results) {
      const want = expected(endpoint, c);
      const label = `${c.pbac} / ${c.persona} / ${credentialLabel(c.credential)}`;
      const message: string | undefined = response.body?.error?.message;
      if (response.status !== want.status) {
        mismatches.push(`${label}: ${response.status} (${message ?? 'ok'}), expected ${want.status}`);
      } else if (want.message !== undefined && message !== want.message) {
        mismatches.push(
          `${label}: message ${JSON.stringify(message)}, expected ${JSON.stringify(want.message)}`,
        );
      } else if (
        want.challenge !== undefined &&
        response.headers.get('www-authenticate') !== want.challenge
      ) {
        mismatches.push(`${label}: WWW-Authenticate ${response.headers.get('www-authenticate')}`);
      } else if (want.status === 403 && response.body?.error?.code !== 'Forbidden') {
        mismatches.push(`${label}: error code ${response.body?.error?.code}`);
      }
    }
    t.deepEqual(mismatches, [], `${mismatches.length} of ${cases.length} cases differ`);
  });
}

// ---------------------------------------------------------------------------------------------
// Leaving and the no-escalation rule, as tables of their own: each case needs memberships and
// roles of its own (a persona that left could not be the caller of the cases above).

type Family = 'org' | 'org team' | 'team of an org' | 'standalone team';

async function ownMembership(family: Family, role: RoleName) {
  const knex = system.stores.db.knex;
  const orgId = family === 'standalone team' ? null : await insertOrganization(knex);
  const teamId = family === 'org' ? null : await insertTeam(knex, orgId);
  const [user] = await insertUsers(knex, 1);
  if (orgId !== null && family !== 'org') {
    await insertMemberships(knex, [{ userId: user!.id, organizationId: orgId, role: 'MEMBER' }]);
  }
  const [membershipId] = await insertMemberships(knex, [
    family === 'org'
      ? { userId: user!.id, organizationId: orgId!, role }
      : { userId: user!.id, teamId: teamId!, role },
  ]);
  const path =
    family === 'org'
      ? `/v2/organizations/${orgId}/memberships/${membershipId}`
      : family === 'org team'
        ? `/v2/organizations/${orgId}/teams/${teamId}/memberships/${membershipId}`
        : `/v2/teams/${teamId}/memberships/${membershipId}`;
  return { user: user!, path };
}

test('matrix: leaving (DELETE of one own membership) by role, in every family: owners 403, others 200', async (t) => {
  const mismatches: string[] = [];
  for (const family of ['org', 'org team', 'team of an org', 'standalone team'] as const) {
    for (const role of ['OWNER', 'ADMIN', 'MEMBER'] as const) {
      const { user, path } = await ownMembership(family, role);
      const response = await call('DELETE', path, { token: user.apiKey });
      const expected = role === 'OWNER' ? 403 : 200;
      if (response.status !== expected)
        mismatches.push(`${family} ${role}: ${response.status}, expected ${expected}`);
    }
  }
  t.deepEqual(mismatches, []);
});

test('matrix: nobody grants a permission they do not hold (role creation and customRoleId), by persona', async (t) => {
  const knex = system.stores.db.knex;
  const orgId = await insertOrganization(knex, { pbacEnabled: true });
  const granter = await insertCustomRole(knex, orgId, ['role.create', 'organization.changeMemberRole']);
  const [owner, admin, member, target] = await insertUsers(knex, 4);
  const [, , , targetMembership] = await insertMemberships(knex, [
    { userId: owner!.id, organizationId: orgId, role: 'OWNER' },
    { userId: admin!.id, organizationId: orgId, role: 'ADMIN' },
    { userId: member!.id, organizationId: orgId, role: 'MEMBER', customRoleId: granter },
    { userId: target!.id, organizationId: orgId, role: 'MEMBER' },
  ]);
  const personas = { owner: owner!, admin: admin!, member: member! };
  // [permissions, who may put them on a role]: OWNER holds all; ADMIN the admin role's list; the
  // member what their role opens organization-wide (role.read, team.read) and their custom role's;
  // member_role's team reads (booking.read) only in their own teams, so not on an organization's role.
  const cases: Array<[string[], Array<keyof typeof personas>]> = [
    [['role.read'], ['owner', 'admin', 'member']],
    [['booking.read'], ['owner', 'admin']],
    [['role.create'], ['owner', 'admin', 'member']],
    [['organization.delete'], ['owner']],
    [['*.*'], ['owner']],
    [['team.*'], ['owner', 'admin']],
    [
      ['organization.changeMemberRole', 'booking.update'],
      ['owner', 'admin'],
    ],
  ];
  const mismatches: string[] = [];
  let n = 0;
  for (const [permissions, allowed] of cases) {
    for (const [name, persona] of Object.entries(personas) as Array<[keyof typeof personas, typeof owner]>) {
      const created = await call('POST', `/v2/organizations/${orgId}/roles`, {
        token: persona!.apiKey,
        body: { name: `Matrix grant ${++n}`, permissions },
      });
      const expected = allowed.includes(name) ? 201 : 403;
      if (created.status !== expected)
        mismatches.push(`${name} creates ${permissions}: ${created.status}, expected ${expected}`);
      if (
        expected === 403 &&
        !/^You cannot grant permissions you do not hold: /.test(created.body?.error?.message ?? '')
      ) {
        mismatches.push(`${name} creates ${permissions}: message ${created.body?.error?.message}`);
      }
      // Assigning an existing role carrying them (the member holds organization.changeMemberRole).
      if (name === 'admin') continue; // an admin assigns through the same check, covered by creation
      const role = await insertCustomRole(knex, orgId, permissions);
      const assigned = await call('PATCH', `/v2/organizations/${orgId}/memberships/${targetMembership}`, {
        token: persona!.apiKey,
        body: { customRoleId: role },
      });
      const wanted = allowed.includes(name) ? 200 : 403;
      if (assigned.status !== wanted)
        mismatches.push(`${name} assigns ${permissions}: ${assigned.status}, expected ${wanted}`);
    }
  }
  t.deepEqual(mismatches, []);
});
