import type { MembershipFacts } from '@sched/policy/access';
import {
  checkOrgMembershipRemoval,
  checkOrgRemovalOfTeamRoles,
  checkRoleAssignment,
  checkTeamMembershipRemoval,
  effectiveOrgRole,
  effectiveTeamRole,
  type RoleAssignmentInput,
  type RuleResult,
  type TeamMembershipRemovalInput,
} from '@sched/policy/membership-rules';
import { ROLES, type Role } from '@sched/policy/roles';
import test from 'ava';

const rank = (r: Role | null | undefined): number => (r ? { OWNER: 3, ADMIN: 2, MEMBER: 1 }[r] : 0);
const m = (role: Role, accepted = true): MembershipFacts => ({ role, accepted });
const OK: RuleResult = { allowed: true };
const no = (reason: string): RuleResult => ({ allowed: false, reason });
const maybeRoles: (Role | null)[] = [null, ...ROLES];

// --- effective roles ---
test('effectiveOrgRole: only accepted memberships count', (t) => {
  t.is(effectiveOrgRole(m('ADMIN')), 'ADMIN');
  t.is(effectiveOrgRole(m('OWNER', false)), null);
  t.is(effectiveOrgRole(null), null);
  t.is(effectiveOrgRole(undefined), null);
});

const effective: [string, Parameters<typeof effectiveTeamRole>[0], Role | null][] = [
  ['team role only', { teamMembership: m('ADMIN'), teamInOrganization: false }, 'ADMIN'],
  ['org owner counts as team owner', { orgMembership: m('OWNER'), teamInOrganization: true }, 'OWNER'],
  ['org admin counts as team admin', { orgMembership: m('ADMIN'), teamInOrganization: true }, 'ADMIN'],
  [
    'org member counts as team member (rank only)',
    { orgMembership: m('MEMBER'), teamInOrganization: true },
    'MEMBER',
  ],
  [
    'higher of org admin and team owner',
    { orgMembership: m('ADMIN'), teamMembership: m('OWNER'), teamInOrganization: true },
    'OWNER',
  ],
  [
    'higher of org owner and team member',
    { orgMembership: m('OWNER'), teamMembership: m('MEMBER'), teamInOrganization: true },
    'OWNER',
  ],
  [
    'org role ignored for a team outside the org',
    { orgMembership: m('OWNER'), teamMembership: m('MEMBER'), teamInOrganization: false },
    'MEMBER',
  ],
  [
    'unaccepted team membership ignored',
    { orgMembership: m('MEMBER'), teamMembership: m('OWNER', false), teamInOrganization: true },
    'MEMBER',
  ],
  [
    'unaccepted org membership ignored',
    { orgMembership: m('OWNER', false), teamMembership: m('ADMIN'), teamInOrganization: true },
    'ADMIN',
  ],
  ['nothing', { teamInOrganization: true }, null],
];
for (const [name, input, expected] of effective) {
  test(`effectiveTeamRole: ${name}`, (t) => {
    t.is(effectiveTeamRole(input), expected);
  });
}

// --- role assignment: named rules with their messages ---
const assignments: [string, RoleAssignmentInput, RuleResult][] = [
  [
    'admin creates a member as OWNER',
    { actorRole: 'ADMIN', self: false, currentRole: null, newRole: 'OWNER' },
    no('An admin cannot assign the owner role'),
  ],
  [
    'admin invites by email as OWNER',
    { actorRole: 'ADMIN', self: false, currentRole: null, newRole: 'OWNER' },
    no('An admin cannot assign the owner role'),
  ],
  [
    'admin promotes a member to OWNER',
    { actorRole: 'ADMIN', self: false, currentRole: 'MEMBER', newRole: 'OWNER' },
    no('An admin cannot assign the owner role'),
  ],
  [
    'admin promotes an admin to OWNER',
    { actorRole: 'ADMIN', self: false, currentRole: 'ADMIN', newRole: 'OWNER' },
    no('An admin cannot assign the owner role'),
  ],
  [
    'admin self-promotes to OWNER',
    { actorRole: 'ADMIN', self: true, currentRole: 'ADMIN', newRole: 'OWNER' },
    no('An admin cannot promote themselves to owner'),
  ],
  [
    'admin demotes an owner to ADMIN',
    { actorRole: 'ADMIN', self: false, currentRole: 'OWNER', newRole: 'ADMIN' },
    no('An admin cannot change the role of an existing owner'),
  ],
  [
    'admin demotes an owner to MEMBER',
    { actorRole: 'ADMIN', self: false, currentRole: 'OWNER', newRole: 'MEMBER' },
    no('An admin cannot change the role of an existing owner'),
  ],
  [
    'admin "sets" OWNER on an owner',
    { actorRole: 'ADMIN', self: false, currentRole: 'OWNER', newRole: 'OWNER' },
    no('An admin cannot change the role of an existing owner'),
  ],
  [
    'admin patches an owner without touching the role',
    { actorRole: 'ADMIN', self: false, currentRole: 'OWNER' },
    no('You cannot modify a member whose role (OWNER) is higher than your own (ADMIN)'),
  ],
  [
    'member assigns ADMIN',
    { actorRole: 'MEMBER', self: false, currentRole: null, newRole: 'ADMIN' },
    no('You cannot assign a role (ADMIN) higher than your own (MEMBER)'),
  ],
  [
    'member assigns OWNER',
    { actorRole: 'MEMBER', self: false, currentRole: 'MEMBER', newRole: 'OWNER' },
    no('You cannot assign a role (OWNER) higher than your own (MEMBER)'),
  ],
  [
    'member self-promotes to ADMIN',
    { actorRole: 'MEMBER', self: true, currentRole: 'MEMBER', newRole: 'ADMIN' },
    no('You cannot assign a role (ADMIN) higher than your own (MEMBER)'),
  ],
  [
    'member modifies an admin',
    { actorRole: 'MEMBER', self: false, currentRole: 'ADMIN', newRole: 'MEMBER' },
    no('You cannot modify a member whose role (ADMIN) is higher than your own (MEMBER)'),
  ],
  [
    'member accepts an owner',
    { actorRole: 'MEMBER', self: false, currentRole: 'OWNER' },
    no('You cannot modify a member whose role (OWNER) is higher than your own (MEMBER)'),
  ],
  [
    'no role at all',
    { actorRole: null, self: false, currentRole: null, newRole: 'MEMBER' },
    no('You have no role here to assign roles with'),
  ],
  ['owner assigns OWNER', { actorRole: 'OWNER', self: false, currentRole: null, newRole: 'OWNER' }, OK],
  [
    'owner promotes an admin to OWNER',
    { actorRole: 'OWNER', self: false, currentRole: 'ADMIN', newRole: 'OWNER' },
    OK,
  ],
  [
    'owner demotes another owner',
    { actorRole: 'OWNER', self: false, currentRole: 'OWNER', newRole: 'MEMBER' },
    OK,
  ],
  [
    'owner demotes themselves',
    { actorRole: 'OWNER', self: true, currentRole: 'OWNER', newRole: 'ADMIN' },
    OK,
  ],
  ['admin creates an ADMIN', { actorRole: 'ADMIN', self: false, currentRole: null, newRole: 'ADMIN' }, OK],
  [
    'admin promotes a member to ADMIN',
    { actorRole: 'ADMIN', self: false, currentRole: 'MEMBER', newRole: 'ADMIN' },
    OK,
  ],
  [
    'admin demotes another admin',
    { actorRole: 'ADMIN', self: false, currentRole: 'ADMIN', newRole: 'MEMBER' },
    OK,
  ],
  [
    'admin demotes themselves',
    { actorRole: 'ADMIN', self: true, currentRole: 'ADMIN', newRole: 'MEMBER' },
    OK,
  ],
  [
    'admin patches a member without touching the role',
    { actorRole: 'ADMIN', self: false, currentRole: 'MEMBER', newRole: null },
    OK,
  ],
  [
    'member (via PBAC) invites a MEMBER',
    { actorRole: 'MEMBER', self: false, currentRole: null, newRole: 'MEMBER' },
    OK,
  ],
  [
    'org admin (effective ADMIN) on a team with team-member self',
    { actorRole: 'ADMIN', self: true, currentRole: 'MEMBER', newRole: 'ADMIN' },
    OK,
  ],
];
for (const [name, input, expected] of assignments) {
  test(`checkRoleAssignment: ${name}`, (t) => {
    t.deepEqual(checkRoleAssignment(input), expected);
  });
}

test('checkRoleAssignment: every actor x current x new x self combination', (t) => {
  for (const actorRole of maybeRoles)
    for (const currentRole of maybeRoles)
      for (const newRole of [undefined, ...maybeRoles])
        for (const self of [false, true]) {
          const allowed =
            actorRole !== null &&
            rank(currentRole) <= rank(actorRole) && // cannot modify a higher member
            rank(newRole) <= rank(actorRole); // cannot assign a higher role
          const result = checkRoleAssignment({ actorRole, currentRole, newRole, self });
          t.is(result.allowed, allowed, JSON.stringify({ actorRole, currentRole, newRole, self }));
          if (!result.allowed) t.true(result.reason.length > 0);
        }
});

// --- team membership removal ---
const removals: [string, TeamMembershipRemovalInput, RuleResult][] = [
  [
    'team owner removes another team owner',
    { actorTeamRole: 'OWNER', actorOrgRole: null, targetRole: 'OWNER', self: false },
    OK,
  ],
  [
    'team admin removes a team owner (even with team.remove)',
    { actorTeamRole: 'ADMIN', actorOrgRole: null, targetRole: 'OWNER', self: false },
    no('Only a team owner or an organization admin or owner can remove a team owner'),
  ],
  [
    'team member removes a team owner',
    { actorTeamRole: 'MEMBER', actorOrgRole: 'MEMBER', targetRole: 'OWNER', self: false },
    no('Only a team owner or an organization admin or owner can remove a team owner'),
  ],
  [
    'org admin (no team membership) removes a team owner',
    { actorTeamRole: null, actorOrgRole: 'ADMIN', targetRole: 'OWNER', self: false },
    OK,
  ],
  [
    'org owner removes a team owner',
    { actorTeamRole: null, actorOrgRole: 'OWNER', targetRole: 'OWNER', self: false },
    OK,
  ],
  [
    'org admin who is team member removes a team owner',
    { actorTeamRole: 'MEMBER', actorOrgRole: 'ADMIN', targetRole: 'OWNER', self: false },
    OK,
  ],
  [
    'org member with team admin removes a team owner',
    { actorTeamRole: 'ADMIN', actorOrgRole: 'MEMBER', targetRole: 'OWNER', self: false },
    no('Only a team owner or an organization admin or owner can remove a team owner'),
  ],
  [
    'team owner removes own membership',
    { actorTeamRole: 'OWNER', actorOrgRole: null, targetRole: 'OWNER', self: true },
    no('A team owner cannot remove their own membership'),
  ],
  [
    'team owner who is org owner removes own membership',
    { actorTeamRole: 'OWNER', actorOrgRole: 'OWNER', targetRole: 'OWNER', self: true },
    no('A team owner cannot remove their own membership'),
  ],
  [
    'team admin removes a team admin',
    { actorTeamRole: 'ADMIN', actorOrgRole: null, targetRole: 'ADMIN', self: false },
    OK,
  ],
  [
    'team admin removes a member',
    { actorTeamRole: 'ADMIN', actorOrgRole: null, targetRole: 'MEMBER', self: false },
    OK,
  ],
  [
    'team admin removes own membership',
    { actorTeamRole: 'ADMIN', actorOrgRole: null, targetRole: 'ADMIN', self: true },
    OK,
  ],
  [
    'team member (via PBAC) removes a member',
    { actorTeamRole: 'MEMBER', actorOrgRole: 'MEMBER', targetRole: 'MEMBER', self: false },
    OK,
  ],
  [
    'team member (via PBAC) removes an admin',
    { actorTeamRole: 'MEMBER', actorOrgRole: null, targetRole: 'ADMIN', self: false },
    no('You cannot remove a member whose role (ADMIN) is higher than your own (MEMBER)'),
  ],
  [
    'org member (via org custom role, no team role) removes an admin',
    { actorTeamRole: null, actorOrgRole: 'MEMBER', targetRole: 'ADMIN', self: false },
    no('You cannot remove a member whose role (ADMIN) is higher than your own (MEMBER)'),
  ],
  [
    'nobody removes a member',
    { actorTeamRole: null, actorOrgRole: null, targetRole: 'MEMBER', self: false },
    no('You cannot remove a member whose role (MEMBER) is higher than your own (none)'),
  ],
  [
    'org admin removes a team admin',
    { actorTeamRole: null, actorOrgRole: 'ADMIN', targetRole: 'ADMIN', self: false },
    OK,
  ],
];
for (const [name, input, expected] of removals) {
  test(`checkTeamMembershipRemoval: ${name}`, (t) => {
    t.deepEqual(checkTeamMembershipRemoval(input), expected);
  });
}

test('checkTeamMembershipRemoval: every team role x org role x target x self combination', (t) => {
  for (const actorTeamRole of maybeRoles)
    for (const actorOrgRole of maybeRoles)
      for (const targetRole of ROLES)
        for (const self of [false, true]) {
          let allowed: boolean;
          if (targetRole === 'OWNER') {
            allowed =
              !self && (actorTeamRole === 'OWNER' || actorOrgRole === 'ADMIN' || actorOrgRole === 'OWNER');
          } else {
            allowed = rank(targetRole) <= Math.max(rank(actorTeamRole), rank(actorOrgRole));
          }
          const input = { actorTeamRole, actorOrgRole, targetRole, self };
          t.is(checkTeamMembershipRemoval(input).allowed, allowed, JSON.stringify(input));
        }
});

// --- organization membership removal ---
const orgRemovals: [Role | null, Role, boolean, RuleResult][] = [
  ['OWNER', 'OWNER', false, OK],
  ['OWNER', 'ADMIN', false, OK],
  ['OWNER', 'MEMBER', false, OK],
  ['OWNER', 'OWNER', true, no('An organization owner cannot remove their own membership')],
  [
    'ADMIN',
    'OWNER',
    false,
    no('You cannot remove a member whose role (OWNER) is higher than your own (ADMIN)'),
  ],
  ['ADMIN', 'ADMIN', false, OK],
  ['ADMIN', 'ADMIN', true, OK],
  ['ADMIN', 'MEMBER', false, OK],
  [
    'MEMBER',
    'OWNER',
    false,
    no('You cannot remove a member whose role (OWNER) is higher than your own (MEMBER)'),
  ],
  [
    'MEMBER',
    'ADMIN',
    false,
    no('You cannot remove a member whose role (ADMIN) is higher than your own (MEMBER)'),
  ],
  ['MEMBER', 'MEMBER', false, OK],
  ['MEMBER', 'MEMBER', true, OK],
  [
    null,
    'MEMBER',
    false,
    no('You cannot remove a member whose role (MEMBER) is higher than your own (none)'),
  ],
];
for (const [actorOrgRole, targetRole, self, expected] of orgRemovals) {
  test(`checkOrgMembershipRemoval: ${actorOrgRole} removes ${self ? 'self' : 'other'} ${targetRole}`, (t) => {
    t.deepEqual(checkOrgMembershipRemoval({ actorOrgRole, targetRole, self }), expected);
  });
}

// Removing an organization membership takes the member's team memberships along: the team roles it
// takes must be ones the remover's organization role may remove.
test('checkOrgRemovalOfTeamRoles: every org role x highest team role x self combination', (t) => {
  const leaving =
    "A team owner cannot remove their own membership: hand the ownership of this organization's teams on before leaving it";
  const owner = 'Only a team owner or an organization admin or owner can remove a team owner';
  const admin =
    'Only an organization admin or owner can remove from the organization a member who is an admin of one of its teams';
  for (const actorOrgRole of maybeRoles) {
    for (const targetTeamRole of maybeRoles) {
      for (const self of [false, true]) {
        let expected: RuleResult = OK;
        if (self) expected = targetTeamRole === 'OWNER' ? no(leaving) : OK;
        else if (rank(targetTeamRole) > 1 && rank(actorOrgRole) < 2) {
          expected = no(targetTeamRole === 'OWNER' ? owner : admin);
        }
        const targetTeamMemberships =
          targetTeamRole === null ? [] : [{ role: targetTeamRole, accepted: true }];
        t.deepEqual(
          checkOrgRemovalOfTeamRoles({ actorOrgRole, targetTeamMemberships, self }),
          expected,
          `${actorOrgRole} removes ${self ? 'self' : 'other'} of team role ${targetTeamRole}`,
        );
      }
    }
  }
  // A pending team invitation ranks by its role as at team level when removing someone, but does not
  // hold its invitee back from leaving (they may decline it).
  for (const role of ['OWNER', 'ADMIN'] as const) {
    const invited = [{ role, accepted: false }];
    t.deepEqual(
      checkOrgRemovalOfTeamRoles({ actorOrgRole: 'MEMBER', targetTeamMemberships: invited, self: false }),
      no(role === 'OWNER' ? owner : admin),
    );
    t.deepEqual(
      checkOrgRemovalOfTeamRoles({ actorOrgRole: 'ADMIN', targetTeamMemberships: invited, self: false }),
      OK,
    );
    t.deepEqual(
      checkOrgRemovalOfTeamRoles({ actorOrgRole: 'MEMBER', targetTeamMemberships: invited, self: true }),
      OK,
    );
  }
  // The row of the finding: organization.remove alone (an org MEMBER) does not take a team ADMIN along.
  t.deepEqual(
    checkOrgRemovalOfTeamRoles({
      actorOrgRole: 'MEMBER',
      targetTeamMemberships: [{ role: 'ADMIN', accepted: true }],
      self: false,
    }),
    no(admin),
  );
});
