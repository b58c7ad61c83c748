import {
  type AuthorizationScopeCheck,
  checkAuthorizationScopes,
  type GrantingUser,
  scopesBeyondUser,
  SCOPE_EXCEEDS_CLIENT_DESCRIPTION,
  SCOPE_REQUIRED_MESSAGE,
  UNKNOWN_SCOPE_DESCRIPTION,
} from '@sched/policy/authorization-scopes';
import test from 'ava';

test('descriptions are the fixed texts', (t) => {
  t.is(SCOPE_REQUIRED_MESSAGE, 'scope parameter is required for this OAuth client');
  t.is(UNKNOWN_SCOPE_DESCRIPTION, 'Requested scope is not a recognized scope');
  t.is(SCOPE_EXCEEDS_CLIENT_DESCRIPTION, "Requested scope exceeds the client's registered scopes");
});

const required: AuthorizationScopeCheck = {
  ok: false,
  error: 'scope_required',
  description: SCOPE_REQUIRED_MESSAGE,
};
const unknown: AuthorizationScopeCheck = {
  ok: false,
  error: 'invalid_scope',
  description: UNKNOWN_SCOPE_DESCRIPTION,
};
const exceeds: AuthorizationScopeCheck = {
  ok: false,
  error: 'invalid_request',
  description: SCOPE_EXCEEDS_CLIENT_DESCRIPTION,
};
const okWith = (scopes: string[]): AuthorizationScopeCheck => ({ ok: true, scopes });

const cases: [string, string[], string[], boolean, AuthorizationScopeCheck][] = [
  ['non-legacy, no scope requested', [], ['BOOKING_READ'], false, required],
  [
    'non-legacy, subset of registered',
    ['BOOKING_READ'],
    ['BOOKING_READ', 'PROFILE_READ'],
    false,
    okWith(['BOOKING_READ']),
  ],
  [
    'non-legacy, all registered',
    ['PROFILE_READ', 'BOOKING_READ'],
    ['BOOKING_READ', 'PROFILE_READ'],
    false,
    okWith(['PROFILE_READ', 'BOOKING_READ']),
  ],
  ['non-legacy, unknown value', ['BOOKING_READ', 'FOO'], ['BOOKING_READ'], false, unknown],
  ['non-legacy, wrong case is unknown', ['booking_read'], ['BOOKING_READ'], false, unknown],
  ['non-legacy, not registered', ['BOOKING_WRITE'], ['BOOKING_READ'], false, exceeds],
  ['non-legacy, WRITE registered does not cover READ', ['BOOKING_READ'], ['BOOKING_WRITE'], false, exceeds],
  [
    'non-legacy, ORG_ registered covers TEAM_ request',
    ['TEAM_PROFILE_READ'],
    ['ORG_PROFILE_READ'],
    false,
    okWith(['TEAM_PROFILE_READ']),
  ],
  [
    'non-legacy, TEAM_ registered does not cover ORG_',
    ['ORG_PROFILE_READ'],
    ['TEAM_PROFILE_READ'],
    false,
    exceeds,
  ],
  ['non-legacy, legacy value not registered', ['READ_BOOKING'], ['BOOKING_READ'], false, exceeds],
  [
    'non-legacy, legacy value still registered',
    ['READ_BOOKING'],
    ['READ_BOOKING', 'BOOKING_READ'],
    false,
    okWith(['READ_BOOKING']),
  ],
  ['unknown checked before registration', ['FOO', 'BOOKING_WRITE'], ['BOOKING_READ'], false, unknown],
  ['legacy, no scope requested', [], [], true, okWith([])],
  [
    'legacy, its legacy scopes',
    ['READ_BOOKING', 'READ_PROFILE'],
    ['READ_BOOKING'],
    true,
    okWith(['READ_BOOKING', 'READ_PROFILE']),
  ],
  [
    'legacy, new scopes before saving them (migration step 1)',
    ['BOOKING_READ'],
    [],
    true,
    okWith(['BOOKING_READ']),
  ],
  ['legacy, unknown value', ['FOO'], [], true, unknown],
];
for (const [name, requested, clientScopes, legacyClient, expected] of cases) {
  test(`checkAuthorizationScopes: ${name}`, (t) => {
    t.deepEqual(checkAuthorizationScopes({ requested, clientScopes, legacyClient }), expected);
  });
}

// Who may grant ORG_ and TEAM_ scopes (the "insufficient permissions" redirect).
const granting: Array<[string, readonly string[], GrantingUser, string[]]> = [
  [
    'no memberships: user scopes only',
    ['PROFILE_READ', 'BOOKING_WRITE'],
    { organizationRoles: [], teamRoles: [] },
    [],
  ],
  [
    'no memberships: ORG_ and TEAM_ refused',
    ['PROFILE_READ', 'ORG_BOOKING_READ', 'TEAM_PROFILE_READ'],
    { organizationRoles: [], teamRoles: [] },
    ['ORG_BOOKING_READ', 'TEAM_PROFILE_READ'],
  ],
  [
    'legacy values need nothing',
    ['READ_BOOKING', 'READ_PROFILE'],
    { organizationRoles: [], teamRoles: [] },
    [],
  ],
  [
    'org MEMBER: ORG_ yes, TEAM_ no',
    ['ORG_BOOKING_READ', 'TEAM_PROFILE_READ'],
    { organizationRoles: ['MEMBER'], teamRoles: [] },
    ['TEAM_PROFILE_READ'],
  ],
  [
    'org ADMIN reaches every team',
    ['ORG_BOOKING_READ', 'TEAM_PROFILE_READ'],
    { organizationRoles: ['ADMIN'], teamRoles: [] },
    [],
  ],
  [
    'org OWNER reaches every team',
    ['TEAM_PROFILE_READ'],
    { organizationRoles: ['OWNER'], teamRoles: [] },
    [],
  ],
  [
    'team MEMBER: TEAM_ yes, ORG_ no',
    ['ORG_BOOKING_READ', 'TEAM_PROFILE_READ'],
    { organizationRoles: [], teamRoles: ['MEMBER'] },
    ['ORG_BOOKING_READ'],
  ],
  ['nothing requested', [], { organizationRoles: [], teamRoles: [] }, []],
];
for (const [name, requested, user, expected] of granting) {
  test(`scopesBeyondUser: ${name}`, (t) => {
    t.deepEqual(scopesBeyondUser(requested, user), expected);
  });
}
