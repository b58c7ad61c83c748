import {
  higherRole,
  parseRole,
  ROLE_RANK,
  ROLES,
  type Role,
  roleAtLeast,
  roleRank,
} from '@sched/policy/roles';
import test from 'ava';

const parseCases: [unknown, Role | null][] = [
  ['OWNER', 'OWNER'],
  ['owner', 'OWNER'],
  ['Owner', 'OWNER'],
  ['oWnEr', 'OWNER'],
  ['ADMIN', 'ADMIN'],
  ['admin', 'ADMIN'],
  ['Admin', 'ADMIN'],
  ['MEMBER', 'MEMBER'],
  ['member', 'MEMBER'],
  ['mEmBeR', 'MEMBER'],
  [' owner', null],
  ['owner ', null],
  ['', null],
  ['superadmin', null],
  ['owners', null],
  ['owner_role', null],
  [null, null],
  [undefined, null],
  [3, null],
  [{ role: 'OWNER' }, null],
];
for (const [input, expected] of parseCases) {
  test(`parseRole(${JSON.stringify(input) ?? 'undefined'}) -> ${expected}`, (t) => {
    t.is(parseRole(input), expected);
  });
}

test('ranks: owner > admin > member > none', (t) => {
  t.deepEqual([...ROLES], ['OWNER', 'ADMIN', 'MEMBER']);
  t.true(ROLE_RANK.OWNER > ROLE_RANK.ADMIN);
  t.true(ROLE_RANK.ADMIN > ROLE_RANK.MEMBER);
  t.true(roleRank('MEMBER') > roleRank(null));
  t.is(roleRank(undefined), 0);
});

// Every (actual, required) pair, written out.
const atLeast: [Role | null | undefined, Role, boolean][] = [
  ['OWNER', 'OWNER', true],
  ['OWNER', 'ADMIN', true],
  ['OWNER', 'MEMBER', true],
  ['ADMIN', 'OWNER', false],
  ['ADMIN', 'ADMIN', true],
  ['ADMIN', 'MEMBER', true],
  ['MEMBER', 'OWNER', false],
  ['MEMBER', 'ADMIN', false],
  ['MEMBER', 'MEMBER', true],
  [null, 'OWNER', false],
  [null, 'ADMIN', false],
  [null, 'MEMBER', false],
  [undefined, 'MEMBER', false],
];
for (const [actual, required, expected] of atLeast) {
  test(`roleAtLeast(${actual}, ${required}) is ${expected}`, (t) => {
    t.is(roleAtLeast(actual, required), expected);
  });
}

const higher: [Role | null, Role | null, Role | null][] = [
  ['OWNER', 'ADMIN', 'OWNER'],
  ['ADMIN', 'OWNER', 'OWNER'],
  ['MEMBER', 'ADMIN', 'ADMIN'],
  ['ADMIN', 'MEMBER', 'ADMIN'],
  ['MEMBER', 'MEMBER', 'MEMBER'],
  ['MEMBER', null, 'MEMBER'],
  [null, 'OWNER', 'OWNER'],
  [null, null, null],
];
for (const [a, b, expected] of higher) {
  test(`higherRole(${a}, ${b}) -> ${expected}`, (t) => {
    t.is(higherRole(a, b), expected);
  });
}
