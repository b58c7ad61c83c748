import type { MembershipFacts } from '@sched/policy/access';
import {
  grantRefusalMessage,
  type HoldingsInput,
  heldPermissions,
  holdsPermission,
  permissionsNotHeld,
} from '@sched/policy/role-grants';
import { ORGANIZATION_MEMBER_HOLDS, SYSTEM_ROLE_PERMISSIONS } from '@sched/policy/system-roles';
import { PERMISSIONS } from '@sched/policy/permissions';
import test from 'ava';

// PBAC cannot be escalated: what a caller holds, and which requested permissions they do not. Each
// row is one case; the wildcard rows fail if patterns were compared as strings or if a requested
// pattern counted as held when only part of it is.

const member = (
  role: MembershipFacts['role'],
  permissions: string[] = [],
  accepted = true,
): MembershipFacts => ({
  role,
  accepted,
  permissions,
});

const org = (input: Partial<HoldingsInput>): HoldingsInput => ({
  level: 'organization',
  pbacEnabled: true,
  ...input,
});
const team = (input: Partial<HoldingsInput>): HoldingsInput => ({
  level: 'team',
  pbacEnabled: true,
  teamInOrganization: true,
  ...input,
});

/** [title, holdings input, requested, expected not held] */
const CASES: ReadonlyArray<readonly [string, HoldingsInput, string[], string[]]> = [
  // Organization level
  ['org OWNER holds everything', org({ orgMembership: member('OWNER') }), ['*.*', 'organization.delete'], []],
  ['org ADMIN lacks *.*', org({ orgMembership: member('ADMIN') }), ['*.*'], ['*.*']],
  [
    'org ADMIN holds team.* and role.*',
    org({ orgMembership: member('ADMIN') }),
    ['team.*', 'role.create'],
    [],
  ],
  [
    'org ADMIN holds *.read (every read is in admin_role)',
    org({ orgMembership: member('ADMIN') }),
    ['*.read'],
    [],
  ],
  [
    'org ADMIN lacks organization.* (no create, delete)',
    org({ orgMembership: member('ADMIN') }),
    ['organization.*', 'organization.update'],
    ['organization.*'],
  ],
  [
    'org ADMIN lacks *.delete (organization.delete)',
    org({ orgMembership: member('ADMIN') }),
    ['*.delete'],
    ['*.delete'],
  ],
  [
    "org MEMBER holds organization-wide only what its role opens there, not member_role's team reads",
    org({ orgMembership: member('MEMBER') }),
    ['role.read', 'team.read', 'booking.read', 'team.listMembers', 'organization.listMembers', 'team.invite'],
    ['booking.read', 'team.listMembers', 'organization.listMembers', 'team.invite'],
  ],
  [
    'PBAC on: the custom role adds its permissions',
    org({ orgMembership: member('MEMBER', ['organization.changeMemberRole', 'booking.*']) }),
    ['organization.changeMemberRole', 'booking.delete', '*.*'],
    ['*.*'],
  ],
  [
    'PBAC off: the custom role counts for nothing',
    org({ pbacEnabled: false, orgMembership: member('MEMBER', ['booking.*']) }),
    ['booking.delete', 'role.read'],
    ['booking.delete'],
  ],
  [
    'a held *.* custom role (PBAC on) covers everything',
    org({ orgMembership: member('MEMBER', ['*.*']) }),
    ['*.*', 'organization.delete'],
    [],
  ],
  [
    'held *.invite covers both invites and the pattern',
    org({ orgMembership: member('MEMBER', ['*.invite']) }),
    ['team.invite', 'organization.invite', '*.invite'],
    [],
  ],
  [
    'held team.* does not cover *.invite (organization.invite missing)',
    org({ orgMembership: member('MEMBER', ['team.*']) }),
    ['*.invite', 'team.invite'],
    ['*.invite'],
  ],
  [
    'every concrete permission held one by one covers *.*',
    org({ orgMembership: member('MEMBER', [...PERMISSIONS]) }),
    ['*.*'],
    [],
  ],
  [
    'a pending membership holds nothing',
    org({ orgMembership: member('OWNER', [], false) }),
    ['booking.read'],
    ['booking.read'],
  ],
  ['no membership holds nothing', org({}), ['booking.read'], ['booking.read']],
  [
    'not held: in request order, each once',
    org({ orgMembership: member('MEMBER') }),
    ['team.remove', 'role.read', '*.*', 'team.remove', 'role.create'],
    ['team.remove', '*.*', 'role.create'],
  ],
  [
    'an invalid string is never held',
    org({ orgMembership: member('OWNER') }),
    ['eventType.invite'],
    ['eventType.invite'],
  ],
  [
    'invalid held strings grant nothing',
    org({ orgMembership: member('MEMBER', ['bogus', 'a.b.c']) }),
    ['booking.create'],
    ['booking.create'],
  ],
  // Team level
  ['team OWNER holds all in the team', team({ teamMembership: member('OWNER') }), ['*.*'], []],
  [
    'team ADMIN: admin_role list',
    team({ teamMembership: member('ADMIN') }),
    ['team.remove', 'organization.create'],
    ['organization.create'],
  ],
  [
    'team MEMBER + org ADMIN: the organization holdings count in its team',
    team({ orgMembership: member('ADMIN'), teamMembership: member('MEMBER') }),
    ['team.changeMemberRole', 'eventType.delete'],
    [],
  ],
  [
    "org MEMBER + team MEMBER: member_role's reads in that team (not the organization's member list)",
    team({ orgMembership: member('MEMBER'), teamMembership: member('MEMBER') }),
    ['team.listMembers', 'booking.read', 'organization.listMembers', 'team.invite'],
    ['organization.listMembers', 'team.invite'],
  ],
  [
    "org MEMBER in no team: not member_role's team reads",
    team({ orgMembership: member('MEMBER'), teamMembership: null }),
    ['team.listMembers', 'booking.read', 'team.read'],
    ['team.listMembers', 'booking.read'],
  ],
  [
    'org OWNER holds all in the organization team',
    team({ orgMembership: member('OWNER'), teamMembership: null }),
    ['*.*'],
    [],
  ],
  [
    'a team of another organization: the org membership counts for nothing',
    team({ teamInOrganization: false, orgMembership: member('OWNER'), teamMembership: member('MEMBER') }),
    ['team.remove'],
    ['team.remove'],
  ],
  [
    'team custom role counts with PBAC on',
    team({ teamMembership: member('MEMBER', ['team.remove']) }),
    ['team.remove'],
    [],
  ],
  [
    'team custom role counts for nothing with PBAC off',
    team({ pbacEnabled: false, teamMembership: member('MEMBER', ['team.remove']) }),
    ['team.remove'],
    ['team.remove'],
  ],
  [
    'a team outside any organization has no PBAC',
    team({ teamInOrganization: false, teamMembership: member('MEMBER', ['team.remove']) }),
    ['team.remove', 'team.read'],
    ['team.remove'],
  ],
];

for (const [title, input, requested, expected] of CASES) {
  test(title, (t) => {
    t.deepEqual(permissionsNotHeld(heldPermissions(input), requested), expected);
  });
}

test('holdings of the system roles are the policy lists (organization level)', (t) => {
  t.deepEqual(heldPermissions(org({ orgMembership: member('ADMIN') })), [
    ...SYSTEM_ROLE_PERMISSIONS.admin_role,
  ]);
  t.deepEqual(heldPermissions(org({ orgMembership: member('MEMBER') })), [...ORGANIZATION_MEMBER_HOLDS]);
  // Organization-wide, a member holds a part of member_role, nothing beside it.
  for (const permission of ORGANIZATION_MEMBER_HOLDS) {
    t.true(SYSTEM_ROLE_PERMISSIONS.member_role.includes(permission), permission);
  }
  t.deepEqual(heldPermissions(org({ orgMembership: member('OWNER') })), ['*.*']);
});

test("member_role does not list organization.listMembers (the members' list is ADMIN's)", (t) => {
  t.false(SYSTEM_ROLE_PERMISSIONS.member_role.includes('organization.listMembers'));
  t.false(holdsPermission(SYSTEM_ROLE_PERMISSIONS.member_role, 'organization.listMembers'));
  t.true(holdsPermission(SYSTEM_ROLE_PERMISSIONS.admin_role, 'organization.listMembers'));
});

test('holdsPermission: a pattern only when all it stands for is held', (t) => {
  t.true(holdsPermission(['team.*'], 'team.*'));
  t.true(holdsPermission(['*.*'], 'team.*'));
  t.false(holdsPermission(['team.read'], 'team.*'));
  t.false(holdsPermission(['*.read'], '*.*'));
  t.true(holdsPermission(['*.read'], 'booking.read'));
});

test('the refusal message is the fixed text', (t) => {
  t.is(
    grantRefusalMessage(['*.*', 'team.remove']),
    'You cannot grant permissions you do not hold: *.*, team.remove',
  );
});
