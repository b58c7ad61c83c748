import type { MembershipFact } from '@sched/db/queries/access-facts';
import type { Role } from '@sched/policy/roles';
import test from 'ava';
import type { AccessContext } from '../../services/api/src/routing/caller.ts';
import { requireGrantable } from '../../services/api/src/services/permissions.ts';

// requireGrantable reads what the access check put on AccessContext, at organization and at team
// level (the membership routes use it for `customRoleId`): which memberships count and whether
// PBAC is on come from the context, not from a query.

const fact = (role: Role, permissions: string[] = [], accepted = true): MembershipFact => ({
  id: 1,
  role,
  accepted,
  customRoleId: permissions.length > 0 ? 'role_x' : null,
  permissions,
});

function context(input: {
  level: 'organization' | 'team';
  pbacEnabled?: boolean;
  teamOrganizationId?: number | null;
  org?: MembershipFact | null;
  team?: MembershipFact | null;
}): AccessContext {
  return {
    requirement: { level: input.level, minimumRole: 'ADMIN', permission: null },
    organization: { id: 7, pbacEnabled: input.pbacEnabled ?? true },
    team:
      input.level === 'team'
        ? { id: 70, organizationId: input.teamOrganizationId === undefined ? 7 : input.teamOrganizationId }
        : null,
    orgMembership: input.org ?? null,
    teamMembership: input.team ?? null,
    decision: { allowed: true, via: 'org_role', reason: 'test' },
  };
}

const refusal = (list: string) => ({ message: `You cannot grant permissions you do not hold: ${list}` });

test('organization level: OWNER grants anything, ADMIN not *.*', (t) => {
  t.notThrows(() => requireGrantable(context({ level: 'organization', org: fact('OWNER') }), ['*.*']));
  t.throws(
    () => requireGrantable(context({ level: 'organization', org: fact('ADMIN') }), ['team.*', '*.*']),
    refusal('*.*'),
  );
});

test('organization level: the custom role counts only with PBAC on', (t) => {
  const org = fact('MEMBER', ['booking.create']);
  t.notThrows(() => requireGrantable(context({ level: 'organization', org }), ['booking.create']));
  t.throws(
    () => requireGrantable(context({ level: 'organization', pbacEnabled: false, org }), ['booking.create']),
    refusal('booking.create'),
  );
});

test('team level: org holdings count in the organization team, not elsewhere', (t) => {
  t.notThrows(() => requireGrantable(context({ level: 'team', org: fact('OWNER') }), ['*.*']));
  t.throws(
    () =>
      requireGrantable(context({ level: 'team', teamOrganizationId: null, org: fact('OWNER') }), [
        'team.read',
      ]),
    refusal('team.read'),
  );
});

test('team level: team OWNER holds all; team custom role with PBAC on; pending counts for nothing', (t) => {
  t.notThrows(() => requireGrantable(context({ level: 'team', team: fact('OWNER') }), ['*.*']));
  const team = fact('MEMBER', ['team.remove']);
  t.notThrows(() => requireGrantable(context({ level: 'team', team }), ['team.remove']));
  t.throws(
    () => requireGrantable(context({ level: 'team', pbacEnabled: false, team }), ['team.remove']),
    refusal('team.remove'),
  );
  t.throws(
    () => requireGrantable(context({ level: 'team', team: fact('OWNER', [], false) }), ['team.read']),
    refusal('team.read'),
  );
});

test('the refusal is a 403 Forbidden', (t) => {
  const error = t.throws(() =>
    requireGrantable(context({ level: 'organization' }), ['booking.read']),
  ) as unknown as {
    status: number;
    code: string;
  };
  t.is(error.status, 403);
  t.is(error.code, 'Forbidden');
});
