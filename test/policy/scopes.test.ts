import { describeScope, SCOPE_DESCRIPTIONS } from '@sched/policy/scope-descriptions';
import {
  checkTokenScopes,
  formatScopeParameter,
  hasScope,
  insufficientScopeMessage,
  isKnownScope,
  isLegacyScope,
  isLegacyScopeSet,
  isScope,
  KNOWN_SCOPES,
  LEGACY_SCOPES,
  NO_SCOPE_ENDPOINT_MESSAGE,
  ORG_SCOPES,
  parseScopeParameter,
  type ScopeCheck,
  type ScopeLevel,
  type ScopeRequirement,
  SCOPES,
  scopeLevel,
  scopeSatisfies,
  TEAM_SCOPES,
  USER_SCOPES,
} from '@sched/policy/scopes';
import test from 'ava';

test('catalogue: 10 per level, 30 current, 35 known (with the 3 OIDC scopes), no duplicates', (t) => {
  t.is(USER_SCOPES.length, 10);
  t.is(TEAM_SCOPES.length, 10);
  t.is(ORG_SCOPES.length, 10);
  t.is(SCOPES.length, 30);
  t.is(new Set(SCOPES).size, 30);
  t.deepEqual([...LEGACY_SCOPES], ['READ_BOOKING', 'READ_PROFILE']);
  t.is(new Set(KNOWN_SCOPES).size, 35);
});

test('catalogue: TEAM_ and ORG_ cover the same resources', (t) => {
  t.deepEqual(
    TEAM_SCOPES.map((s) => s.slice('TEAM_'.length)),
    ORG_SCOPES.map((s) => s.slice('ORG_'.length)),
  );
  t.true(TEAM_SCOPES.includes('TEAM_MEMBERSHIP_WRITE'));
  t.true(ORG_SCOPES.includes('ORG_MEMBERSHIP_READ'));
});

const levels: [readonly string[], ScopeLevel][] = [
  [USER_SCOPES, 'user'],
  [TEAM_SCOPES, 'team'],
  [ORG_SCOPES, 'org'],
  [LEGACY_SCOPES, 'legacy'],
];
for (const [list, level] of levels) {
  test(`scopeLevel: every ${level} scope`, (t) => {
    for (const s of list) {
      t.true(isKnownScope(s), s);
      t.is(scopeLevel(s as never), level, s);
      t.is(isScope(s), level !== 'legacy', s);
      t.is(isLegacyScope(s), level === 'legacy', s);
    }
  });
}

test('isScope / isKnownScope reject unknown and wrongly cased values', (t) => {
  for (const s of [
    '',
    'booking_read',
    'BOOKING',
    'ORG_APPS_READ',
    'TEAM_APPS_READ',
    'READ_SCHEDULE',
    ' BOOKING_READ',
  ]) {
    t.false(isScope(s), s);
    t.false(isKnownScope(s), s);
  }
});

test('descriptions: every known scope has one; the 30 are distinct', (t) => {
  for (const s of KNOWN_SCOPES) t.true(SCOPE_DESCRIPTIONS[s].length > 0, s);
  t.is(new Set(SCOPES.map((s) => SCOPE_DESCRIPTIONS[s])).size, 30);
  t.is(describeScope('BOOKING_READ'), 'Read your bookings');
  t.is(describeScope('NOT_A_SCOPE'), 'NOT_A_SCOPE');
  t.is(describeScope('toString'), 'toString');
});

const parseCases: [string | readonly string[] | null | undefined, string[]][] = [
  ['BOOKING_READ PROFILE_READ', ['BOOKING_READ', 'PROFILE_READ']],
  ['BOOKING_READ,PROFILE_READ', ['BOOKING_READ', 'PROFILE_READ']],
  ['BOOKING_READ, PROFILE_READ', ['BOOKING_READ', 'PROFILE_READ']],
  ['  BOOKING_READ ,, PROFILE_READ  ', ['BOOKING_READ', 'PROFILE_READ']],
  ['BOOKING_READ\tPROFILE_READ\nAPPS_READ', ['BOOKING_READ', 'PROFILE_READ', 'APPS_READ']],
  ['PROFILE_READ BOOKING_READ PROFILE_READ', ['PROFILE_READ', 'BOOKING_READ']],
  ['unknown_value', ['unknown_value']],
  ['', []],
  ['   ', []],
  [',,, ,', []],
  [null, []],
  [undefined, []],
  [[], []],
  [
    ['BOOKING_READ PROFILE_READ', 'APPS_READ', 'BOOKING_READ', ''],
    ['BOOKING_READ', 'PROFILE_READ', 'APPS_READ'],
  ],
];
for (const [raw, expected] of parseCases) {
  test(`parseScopeParameter(${JSON.stringify(raw)})`, (t) => {
    t.deepEqual(parseScopeParameter(raw), expected);
  });
}

test('formatScopeParameter joins with spaces', (t) => {
  t.is(formatScopeParameter(['BOOKING_READ', 'PROFILE_READ']), 'BOOKING_READ PROFILE_READ');
  t.is(formatScopeParameter([]), '');
});

const legacySets: [string[], boolean][] = [
  [[], true],
  [['READ_BOOKING'], true],
  [['READ_PROFILE'], true],
  [['READ_BOOKING', 'READ_PROFILE'], true],
  [['BOOKING_READ'], false],
  [['READ_BOOKING', 'BOOKING_READ'], false],
  [['TEAM_PROFILE_READ'], false],
  [['SOMETHING_ELSE'], false],
];
for (const [scopes, expected] of legacySets) {
  test(`isLegacyScopeSet(${JSON.stringify(scopes)}) is ${expected}`, (t) => {
    t.is(isLegacyScopeSet(scopes), expected);
  });
}

// The only implications: ORG_X -> TEAM_X.
const IMPLIED: [string, string][] = [
  ['ORG_EVENT_TYPE_READ', 'TEAM_EVENT_TYPE_READ'],
  ['ORG_EVENT_TYPE_WRITE', 'TEAM_EVENT_TYPE_WRITE'],
  ['ORG_BOOKING_READ', 'TEAM_BOOKING_READ'],
  ['ORG_BOOKING_WRITE', 'TEAM_BOOKING_WRITE'],
  ['ORG_SCHEDULE_READ', 'TEAM_SCHEDULE_READ'],
  ['ORG_SCHEDULE_WRITE', 'TEAM_SCHEDULE_WRITE'],
  ['ORG_PROFILE_READ', 'TEAM_PROFILE_READ'],
  ['ORG_PROFILE_WRITE', 'TEAM_PROFILE_WRITE'],
  ['ORG_MEMBERSHIP_READ', 'TEAM_MEMBERSHIP_READ'],
  ['ORG_MEMBERSHIP_WRITE', 'TEAM_MEMBERSHIP_WRITE'],
];

test('scopeSatisfies: every granted x required pair', (t) => {
  const granted = [...KNOWN_SCOPES, 'UNKNOWN', 'ORG_UNKNOWN', 'ORG_APPS_READ', ''];
  let count = 0;
  for (const g of granted) {
    for (const r of [...KNOWN_SCOPES, 'TEAM_APPS_READ']) {
      const expected = (g === r && isKnownScope(g)) || IMPLIED.some(([a, b]) => a === g && b === r);
      t.is(scopeSatisfies(g, r), expected, `${g} -> ${r}`);
      if (expected) count++;
    }
  }
  t.is(count, 35 + 10);
});

const notImplied: [string, string, string][] = [
  ['BOOKING_WRITE', 'BOOKING_READ', '_WRITE does not imply _READ'],
  ['TEAM_PROFILE_WRITE', 'TEAM_PROFILE_READ', '_WRITE does not imply _READ (team)'],
  ['ORG_MEMBERSHIP_WRITE', 'ORG_MEMBERSHIP_READ', '_WRITE does not imply _READ (org)'],
  ['ORG_MEMBERSHIP_WRITE', 'TEAM_MEMBERSHIP_READ', 'ORG_WRITE does not imply TEAM_READ'],
  ['TEAM_PROFILE_READ', 'ORG_PROFILE_READ', 'TEAM_ does not imply ORG_'],
  ['ORG_BOOKING_READ', 'BOOKING_READ', 'ORG_ does not imply the individual scope'],
  ['TEAM_BOOKING_READ', 'BOOKING_READ', 'TEAM_ does not imply the individual scope'],
  ['BOOKING_READ', 'TEAM_BOOKING_READ', 'individual does not imply TEAM_'],
  ['READ_BOOKING', 'BOOKING_READ', 'legacy READ_BOOKING is not BOOKING_READ'],
  ['READ_PROFILE', 'PROFILE_READ', 'legacy READ_PROFILE is not PROFILE_READ'],
  ['ORG_BOOKING_READ', 'TEAM_PROFILE_READ', 'ORG_ implies only the same TEAM_ resource'],
];
for (const [g, r, why] of notImplied) {
  test(`scopeSatisfies: ${why}`, (t) => {
    t.false(scopeSatisfies(g, r));
  });
}

test('hasScope looks through the whole set', (t) => {
  t.true(hasScope(['BOOKING_READ', 'ORG_PROFILE_READ'], 'TEAM_PROFILE_READ'));
  t.false(hasScope(['BOOKING_WRITE'], 'BOOKING_READ'));
  t.false(hasScope([], 'BOOKING_READ'));
});

test('messages are the fixed texts', (t) => {
  t.is(
    insufficientScopeMessage(['BOOKING_READ', 'PROFILE_READ'], ['EVENT_TYPE_READ', 'APPS_READ']),
    'insufficient_scope: token does not have the required scopes. Required: BOOKING_READ, PROFILE_READ. Token has: EVENT_TYPE_READ, APPS_READ',
  );
  t.is(
    NO_SCOPE_ENDPOINT_MESSAGE,
    'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
  );
});

type CheckCase = {
  name: string;
  required: ScopeRequirement;
  granted: string[];
  legacy: boolean;
  allowed: boolean;
  reason: ScopeCheck['reason'];
  message?: string;
};
const checkCases: CheckCase[] = [
  {
    name: 'legacy token, no scopes, scoped endpoint',
    required: 'BOOKING_READ',
    granted: [],
    legacy: true,
    allowed: true,
    reason: 'legacy_token',
  },
  {
    // Endpoints naming no scope are not reachable with OAuth tokens, legacy ones too.
    name: 'legacy token on an endpoint naming no scope',
    required: undefined,
    granted: ['READ_BOOKING'],
    legacy: true,
    allowed: false,
    reason: 'endpoint_has_no_scope',
    message: NO_SCOPE_ENDPOINT_MESSAGE,
  },
  {
    name: 'legacy token with unrelated new scopes',
    required: 'ORG_MEMBERSHIP_WRITE',
    granted: ['BOOKING_READ'],
    legacy: true,
    allowed: true,
    reason: 'legacy_token',
  },
  {
    name: 'exact scope held',
    required: 'PROFILE_READ',
    granted: ['BOOKING_READ', 'PROFILE_READ'],
    legacy: false,
    allowed: true,
    reason: 'scope_granted',
  },
  {
    name: 'ORG_ scope satisfies TEAM_ requirement',
    required: 'TEAM_PROFILE_READ',
    granted: ['ORG_PROFILE_READ'],
    legacy: false,
    allowed: true,
    reason: 'scope_granted',
  },
  {
    name: 'one of the alternatives held',
    required: ['TEAM_BOOKING_READ', 'BOOKING_READ'],
    granted: ['BOOKING_READ'],
    legacy: false,
    allowed: true,
    reason: 'scope_granted',
  },
  {
    name: 'scope missing',
    required: 'PROFILE_WRITE',
    granted: ['PROFILE_READ', 'BOOKING_READ'],
    legacy: false,
    allowed: false,
    reason: 'missing_scope',
    message:
      'insufficient_scope: token does not have the required scopes. Required: PROFILE_WRITE. Token has: PROFILE_READ, BOOKING_READ',
  },
  {
    name: 'WRITE held, READ required',
    required: 'BOOKING_READ',
    granted: ['BOOKING_WRITE'],
    legacy: false,
    allowed: false,
    reason: 'missing_scope',
    message:
      'insufficient_scope: token does not have the required scopes. Required: BOOKING_READ. Token has: BOOKING_WRITE',
  },
  {
    name: 'TEAM_ held, ORG_ required',
    required: 'ORG_PROFILE_READ',
    granted: ['TEAM_PROFILE_READ'],
    legacy: false,
    allowed: false,
    reason: 'missing_scope',
    message:
      'insufficient_scope: token does not have the required scopes. Required: ORG_PROFILE_READ. Token has: TEAM_PROFILE_READ',
  },
  {
    name: 'no alternative held lists them all',
    required: ['TEAM_BOOKING_READ', 'BOOKING_READ'],
    granted: ['PROFILE_READ'],
    legacy: false,
    allowed: false,
    reason: 'missing_scope',
    message:
      'insufficient_scope: token does not have the required scopes. Required: TEAM_BOOKING_READ, BOOKING_READ. Token has: PROFILE_READ',
  },
  {
    name: 'non-legacy token without scopes',
    required: 'PROFILE_READ',
    granted: [],
    legacy: false,
    allowed: false,
    reason: 'missing_scope',
    message:
      'insufficient_scope: token does not have the required scopes. Required: PROFILE_READ. Token has: ',
  },
  {
    name: 'endpoint names no scope (undefined)',
    required: undefined,
    granted: ['PROFILE_READ'],
    legacy: false,
    allowed: false,
    reason: 'endpoint_has_no_scope',
    message: NO_SCOPE_ENDPOINT_MESSAGE,
  },
  {
    name: 'endpoint names no scope (null)',
    required: null,
    granted: ['PROFILE_READ'],
    legacy: false,
    allowed: false,
    reason: 'endpoint_has_no_scope',
    message: NO_SCOPE_ENDPOINT_MESSAGE,
  },
  {
    name: 'endpoint names no scope (empty list)',
    required: [],
    granted: ['ORG_PROFILE_WRITE'],
    legacy: false,
    allowed: false,
    reason: 'endpoint_has_no_scope',
    message: NO_SCOPE_ENDPOINT_MESSAGE,
  },
];
for (const c of checkCases) {
  test(`checkTokenScopes: ${c.name}`, (t) => {
    const result = checkTokenScopes({
      requiredScopes: c.required,
      grantedScopes: c.granted,
      legacy: c.legacy,
    });
    t.is(result.allowed, c.allowed);
    t.is(result.reason, c.reason);
    if (!result.allowed) t.is(result.message, c.message ?? '');
  });
}

test('checkTokenScopes reports the matching alternative and the missing list', (t) => {
  const ok = checkTokenScopes({
    requiredScopes: ['BOOKING_READ', 'TEAM_BOOKING_READ'],
    grantedScopes: ['ORG_BOOKING_READ'],
    legacy: false,
  });
  t.deepEqual(ok, { allowed: true, reason: 'scope_granted', matched: 'TEAM_BOOKING_READ' });
  const no = checkTokenScopes({ requiredScopes: 'APPS_WRITE', grantedScopes: ['APPS_READ'], legacy: false });
  t.false(no.allowed);
  if (!no.allowed) t.deepEqual(no.missing, ['APPS_WRITE']);
});
