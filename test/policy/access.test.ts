import {
  type AccessInput,
  type AccessRequirement,
  type AccessVia,
  decideAccess,
  type MembershipFacts,
} from '@sched/policy/access';
import { ROLES, type Role } from '@sched/policy/roles';
import test from 'ava';

const m = (role: Role, permissions: string[] = [], accepted = true): MembershipFacts => ({
  role,
  accepted,
  permissions,
});
const orgReq = (minimumRole: Role, permission: string | null = 'organization.invite'): AccessRequirement => ({
  level: 'organization',
  minimumRole,
  permission,
});
const teamReq = (minimumRole: Role, permission: string | null = 'team.remove'): AccessRequirement => ({
  level: 'team',
  minimumRole,
  permission,
});

const rank: Record<Role, number> = { OWNER: 3, ADMIN: 2, MEMBER: 1 };

// --- PBAC table, organization level ---
type Row = [string, Omit<AccessInput, 'requirement'>, AccessRequirement, AccessVia];
const pbacRows: Row[] = [
  [
    'org: PBAC off, member holds permission -> role check only',
    { pbacEnabled: false, orgMembership: m('MEMBER', ['organization.invite']) },
    orgReq('ADMIN'),
    'denied',
  ],
  [
    'org: PBAC off, admin -> role',
    { pbacEnabled: false, orgMembership: m('ADMIN') },
    orgReq('ADMIN'),
    'org_role',
  ],
  [
    'org: PBAC on, member holds -> granted, role skipped',
    { pbacEnabled: true, orgMembership: m('MEMBER', ['organization.invite']) },
    orgReq('ADMIN'),
    'permission',
  ],
  [
    'org: PBAC on, member holds wildcard',
    { pbacEnabled: true, orgMembership: m('MEMBER', ['organization.*']) },
    orgReq('OWNER'),
    'permission',
  ],
  [
    'org: PBAC on, member lacks -> role check fails',
    { pbacEnabled: true, orgMembership: m('MEMBER', ['organization.read']) },
    orgReq('ADMIN'),
    'denied',
  ],
  [
    'org: PBAC on, admin lacks -> role check passes',
    { pbacEnabled: true, orgMembership: m('ADMIN') },
    orgReq('ADMIN'),
    'org_role',
  ],
  [
    'org: PBAC on, admin holds -> via permission',
    { pbacEnabled: true, orgMembership: m('ADMIN', ['*.*']) },
    orgReq('ADMIN'),
    'permission',
  ],
  [
    'org: PBAC on, endpoint without permission -> role only',
    { pbacEnabled: true, orgMembership: m('MEMBER', ['*.*']) },
    orgReq('ADMIN', null),
    'denied',
  ],
  [
    'org: team custom role does not apply at organization level',
    { pbacEnabled: true, orgMembership: m('MEMBER'), teamMembership: m('OWNER', ['*.*']) },
    orgReq('ADMIN'),
    'denied',
  ],
  // --- team level ---
  [
    'team: PBAC off, team member holds -> role check only',
    { pbacEnabled: false, teamInOrganization: true, teamMembership: m('MEMBER', ['team.remove']) },
    teamReq('ADMIN'),
    'denied',
  ],
  [
    'team: PBAC off, org member holds -> role check only',
    {
      pbacEnabled: false,
      teamInOrganization: true,
      orgMembership: m('MEMBER', ['team.remove']),
      teamMembership: m('MEMBER'),
    },
    teamReq('ADMIN'),
    'denied',
  ],
  [
    'team: PBAC on, team custom role holds',
    { pbacEnabled: true, teamInOrganization: true, teamMembership: m('MEMBER', ['team.remove']) },
    teamReq('ADMIN'),
    'permission',
  ],
  [
    'team: PBAC on, org custom role applies in the team',
    { pbacEnabled: true, teamInOrganization: true, orgMembership: m('MEMBER', ['team.remove']) },
    teamReq('ADMIN'),
    'permission',
  ],
  [
    'team: PBAC on, org custom role wildcard',
    { pbacEnabled: true, teamInOrganization: true, orgMembership: m('MEMBER', ['*.remove']) },
    teamReq('OWNER'),
    'permission',
  ],
  [
    'team: PBAC on, neither holds -> team role passes',
    {
      pbacEnabled: true,
      teamInOrganization: true,
      orgMembership: m('MEMBER'),
      teamMembership: m('ADMIN', ['team.read']),
    },
    teamReq('ADMIN'),
    'team_role',
  ],
  [
    'team: PBAC on, neither holds -> team role fails',
    {
      pbacEnabled: true,
      teamInOrganization: true,
      orgMembership: m('MEMBER', ['team.invite']),
      teamMembership: m('MEMBER', ['team.read']),
    },
    teamReq('ADMIN'),
    'denied',
  ],
  [
    'team: PBAC on, organization.remove does not grant team.remove',
    { pbacEnabled: true, teamInOrganization: true, orgMembership: m('MEMBER', ['organization.remove']) },
    teamReq('ADMIN'),
    'denied',
  ],
  [
    'team: PBAC on, team outside the org -> no PBAC',
    { pbacEnabled: true, teamInOrganization: false, teamMembership: m('MEMBER', ['team.remove']) },
    teamReq('ADMIN'),
    'denied',
  ],
  [
    'team: PBAC on, org custom role of another org ignored',
    {
      pbacEnabled: true,
      teamInOrganization: false,
      orgMembership: m('MEMBER', ['*.*']),
      teamMembership: m('MEMBER'),
    },
    teamReq('ADMIN'),
    'denied',
  ],
  [
    'team: PBAC on, endpoint without permission',
    { pbacEnabled: true, teamInOrganization: true, teamMembership: m('MEMBER', ['*.*']) },
    teamReq('ADMIN', null),
    'denied',
  ],
];
for (const [name, rest, requirement, via] of pbacRows) {
  test(`decideAccess: ${name}`, (t) => {
    const d = decideAccess({ ...rest, requirement });
    t.is(d.via, via);
    t.is(d.allowed, via !== 'denied');
  });
}

// --- every role pair ---
for (const actual of ROLES) {
  for (const required of ROLES) {
    test(`org level: org ${actual} on endpoint needing ${required}`, (t) => {
      const d = decideAccess({ requirement: orgReq(required), orgMembership: m(actual), pbacEnabled: false });
      t.is(d.allowed, rank[actual] >= rank[required]);
      t.is(d.via, d.allowed ? 'org_role' : 'denied');
    });
    test(`team level: team ${actual} (no org role) on endpoint needing ${required}`, (t) => {
      const d = decideAccess({
        requirement: teamReq(required),
        teamMembership: m(actual),
        pbacEnabled: false,
      });
      t.is(d.allowed, rank[actual] >= rank[required]);
      t.is(d.via, d.allowed ? 'team_role' : 'denied');
    });
    test(`team level: org ${actual} without team membership on endpoint needing team ${required}`, (t) => {
      const d = decideAccess({
        requirement: teamReq(required),
        orgMembership: m(actual),
        teamInOrganization: true,
        pbacEnabled: false,
      });
      // Org admin/owner: any team endpoint of the org. Org member: needs a team membership.
      t.is(d.allowed, actual !== 'MEMBER');
      t.is(d.via, d.allowed ? 'org_role' : 'denied');
    });
    test(`team level: org MEMBER with team ${actual} on endpoint needing ${required}`, (t) => {
      const d = decideAccess({
        requirement: teamReq(required),
        orgMembership: m('MEMBER'),
        teamMembership: m(actual),
        teamInOrganization: true,
        pbacEnabled: false,
      });
      t.is(d.allowed, rank[actual] >= rank[required]);
    });
  }
}

const others: Row[] = [
  [
    'org admin of another org gets nothing on a team outside it',
    { pbacEnabled: false, teamInOrganization: false, orgMembership: m('OWNER') },
    teamReq('MEMBER'),
    'denied',
  ],
  [
    'org admin + team member: org role wins',
    { pbacEnabled: false, teamInOrganization: true, orgMembership: m('ADMIN'), teamMembership: m('MEMBER') },
    teamReq('OWNER'),
    'org_role',
  ],
  [
    'unaccepted org owner',
    { pbacEnabled: false, orgMembership: m('OWNER', [], false) },
    orgReq('MEMBER'),
    'denied',
  ],
  [
    'unaccepted org admin on a team endpoint',
    { pbacEnabled: false, teamInOrganization: true, orgMembership: m('ADMIN', [], false) },
    teamReq('MEMBER'),
    'denied',
  ],
  [
    'unaccepted team owner',
    { pbacEnabled: false, teamMembership: m('OWNER', [], false) },
    teamReq('MEMBER'),
    'denied',
  ],
  [
    'unaccepted org membership: custom role ignored',
    { pbacEnabled: true, orgMembership: m('MEMBER', ['*.*'], false) },
    orgReq('ADMIN'),
    'denied',
  ],
  [
    'unaccepted team membership: custom role ignored',
    { pbacEnabled: true, teamInOrganization: true, teamMembership: m('MEMBER', ['*.*'], false) },
    teamReq('ADMIN'),
    'denied',
  ],
  ['service admin without membership', { pbacEnabled: true, serviceAdmin: true }, orgReq('MEMBER'), 'denied'],
  [
    'service admin without team membership',
    { pbacEnabled: false, serviceAdmin: true },
    teamReq('MEMBER'),
    'denied',
  ],
  [
    'service admin who is an org member passes as a member',
    { pbacEnabled: false, serviceAdmin: true, orgMembership: m('MEMBER') },
    orgReq('MEMBER'),
    'org_role',
  ],
  ['nobody', { pbacEnabled: false }, orgReq('MEMBER'), 'denied'],
];
for (const [name, rest, requirement, via] of others) {
  test(`decideAccess: ${name}`, (t) => {
    t.is(decideAccess({ ...rest, requirement }).via, via);
  });
}

test('reasons explain the decision', (t) => {
  t.is(
    decideAccess({ requirement: teamReq('ADMIN'), teamMembership: m('MEMBER'), pbacEnabled: false }).reason,
    "requires team role ADMIN or organization role ADMIN; caller's team role is MEMBER",
  );
  t.is(
    decideAccess({ requirement: orgReq('ADMIN'), orgMembership: m('MEMBER'), pbacEnabled: true }).reason,
    "requires organization role ADMIN or permission organization.invite; caller's organization role is MEMBER",
  );
  t.is(
    decideAccess({ requirement: orgReq('MEMBER'), orgMembership: m('OWNER', [], false), pbacEnabled: false })
      .reason,
    'requires organization role MEMBER; the organization invitation is not accepted',
  );
  t.is(
    decideAccess({ requirement: orgReq('MEMBER'), pbacEnabled: false, serviceAdmin: true }).reason,
    'requires organization role MEMBER; service administrators have no implicit organization access',
  );
  t.is(
    decideAccess({ requirement: teamReq('MEMBER'), pbacEnabled: false }).reason,
    'requires team role MEMBER or organization role ADMIN; caller is not a member of the team',
  );
  t.is(
    decideAccess({
      requirement: teamReq('ADMIN'),
      pbacEnabled: true,
      teamInOrganization: true,
      orgMembership: m('MEMBER', ['team.remove']),
    }).reason,
    'permission team.remove granted by the organization custom role',
  );
  t.is(
    decideAccess({
      requirement: teamReq('OWNER'),
      pbacEnabled: false,
      teamInOrganization: true,
      orgMembership: m('ADMIN'),
    }).reason,
    'organization role ADMIN grants access to every team of the organization',
  );
});

// Exhaustive team-level grid against a restatement of the access rules.
const maybeRoles: (Role | null)[] = [null, ...ROLES];
const bools = [false, true];
test('team level: every combination of memberships, acceptance, PBAC and permissions', (t) => {
  let n = 0;
  for (const orgRole of maybeRoles)
    for (const orgAccepted of bools)
      for (const orgHolds of bools)
        for (const teamRole of maybeRoles)
          for (const teamAccepted of bools)
            for (const teamHolds of bools)
              for (const required of ROLES)
                for (const pbacEnabled of bools)
                  for (const teamInOrganization of bools) {
                    const perms = (holds: boolean) => (holds ? ['team.remove'] : ['team.read']);
                    const d = decideAccess({
                      requirement: teamReq(required),
                      orgMembership: orgRole && m(orgRole, perms(orgHolds), orgAccepted),
                      teamMembership: teamRole && m(teamRole, perms(teamHolds), teamAccepted),
                      pbacEnabled,
                      teamInOrganization,
                    });
                    const org = orgRole && orgAccepted && teamInOrganization ? orgRole : null;
                    const team = teamRole && teamAccepted ? teamRole : null;
                    const pbac = pbacEnabled && teamInOrganization;
                    let via: AccessVia = 'denied';
                    if (pbac && ((org && orgHolds) || (team && teamHolds))) via = 'permission';
                    else if (org === 'OWNER' || org === 'ADMIN') via = 'org_role';
                    else if (team && rank[team] >= rank[required]) via = 'team_role';
                    t.is(
                      d.via,
                      via,
                      JSON.stringify({
                        orgRole,
                        orgAccepted,
                        orgHolds,
                        teamRole,
                        teamAccepted,
                        teamHolds,
                        required,
                        pbacEnabled,
                        teamInOrganization,
                      }),
                    );
                    t.is(d.allowed, via !== 'denied');
                    n++;
                  }
  t.is(n, 4 * 2 * 2 * 4 * 2 * 2 * 3 * 2 * 2);
});

test('organization level: every combination of role, acceptance, PBAC and permission', (t) => {
  for (const orgRole of maybeRoles)
    for (const accepted of bools)
      for (const holds of bools)
        for (const required of ROLES)
          for (const pbacEnabled of bools) {
            const d = decideAccess({
              requirement: orgReq(required),
              orgMembership: orgRole && m(orgRole, holds ? ['organization.invite'] : [], accepted),
              teamMembership: m('OWNER', ['*.*']),
              pbacEnabled,
            });
            const role = orgRole && accepted ? orgRole : null;
            let via: AccessVia = 'denied';
            if (pbacEnabled && role && holds) via = 'permission';
            else if (role && rank[role] >= rank[required]) via = 'org_role';
            t.is(d.via, via);
          }
});
