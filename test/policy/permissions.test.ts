import {
  CRUD_ACTIONS,
  invalidPermissionMessage,
  isValidPermission,
  MEMBERSHIP_ACTIONS,
  PERMISSION_RESOURCES,
  PERMISSIONS,
  permissionGrants,
  validatePermission,
  validatePermissionList,
} from '@sched/policy/permissions';
import test from 'ava';

test('catalogue: 6 resources x 4 actions + 2 x 4 membership actions = 32', (t) => {
  t.is(PERMISSIONS.length, 6 * 4 + 2 * 4);
  t.is(new Set(PERMISSIONS).size, PERMISSIONS.length);
  for (const p of [
    'team.invite',
    'team.remove',
    'team.listMembers',
    'team.changeMemberRole',
    'organization.invite',
    'organization.remove',
    'organization.listMembers',
    'organization.changeMemberRole',
  ]) {
    t.true(PERMISSIONS.includes(p as never), p);
  }
});

test('every concrete permission is valid', (t) => {
  for (const p of PERMISSIONS) t.true(isValidPermission(p), p);
});

test('wildcards: *.*, resource.* for every resource, *.action for every action', (t) => {
  t.true(isValidPermission('*.*'));
  for (const r of PERMISSION_RESOURCES) t.true(isValidPermission(`${r}.*`), r);
  for (const a of [...CRUD_ACTIONS, ...MEMBERSHIP_ACTIONS]) t.true(isValidPermission(`*.${a}`), a);
});

const message = (p: string) =>
  `Permission '${p}' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')`;

const invalid: [string, string][] = [
  ['', 'empty'],
  ['.', 'only a dot'],
  ['eventType', 'no action'],
  ['eventType.', 'empty action'],
  ['.read', 'empty resource'],
  ['a.b.c', 'three parts'],
  ['eventType.read.extra', 'three parts with a valid prefix'],
  ['eventType..read', 'double dot'],
  ['unknown.read', 'unknown resource'],
  ['user.read', 'unknown resource (user)'],
  ['eventType.unknown', 'unknown action'],
  ['eventType.write', 'unknown action (write)'],
  ['eventType.invite', 'membership action on a non-membership resource'],
  ['booking.remove', 'membership action on booking'],
  ['role.changeMemberRole', 'membership action on role'],
  ['*.unknown', 'wildcard resource with unknown action'],
  ['unknown.*', 'unknown resource with wildcard action'],
  ['*', 'lone wildcard'],
  ['**.*', 'double wildcard resource'],
  ['*.**', 'double wildcard action'],
  ['event*.read', 'partial wildcard'],
  ['EventType.read', 'resource case'],
  ['eventtype.read', 'resource case (lower)'],
  ['eventType.READ', 'action case'],
  ['team.listmembers', 'action case (membership)'],
  [' eventType.read', 'leading space'],
  ['eventType.read ', 'trailing space'],
  ['eventType .read', 'space before dot'],
  ['eventType. read', 'space after dot'],
  ['\teventType.read\n', 'tab and newline'],
];
for (const [p, why] of invalid) {
  test(`invalid permission: ${why} (${JSON.stringify(p)})`, (t) => {
    t.false(isValidPermission(p));
    t.deepEqual(validatePermission(p), { valid: false, message: message(p) });
  });
}

test('non-string values are invalid', (t) => {
  for (const v of [null, undefined, 42, {}, ['eventType.read']]) {
    t.false(isValidPermission(v));
    t.false(validatePermission(v).valid);
  }
  t.is(invalidPermissionMessage(null), message('null'));
});

test('validatePermission returns the value when valid', (t) => {
  t.deepEqual(validatePermission('eventType.read'), { valid: true, permission: 'eventType.read' });
  t.deepEqual(validatePermission('*.*'), { valid: true, permission: '*.*' });
});

test('validatePermissionList: de-duplicates, keeps order, empty list is valid', (t) => {
  t.deepEqual(validatePermissionList(['team.remove', 'eventType.*', 'team.remove']), {
    valid: true,
    permissions: ['team.remove', 'eventType.*'],
  });
  t.deepEqual(validatePermissionList([]), { valid: true, permissions: [] });
});

test('validatePermissionList: first invalid value fails the list', (t) => {
  t.deepEqual(validatePermissionList(['team.remove', 'a.b.c', 'bad']), {
    valid: false,
    message: message('a.b.c'),
    invalid: 'a.b.c',
  });
  t.deepEqual(validatePermissionList(['team.remove', undefined]), {
    valid: false,
    message: message('undefined'),
    invalid: undefined,
  });
});

const grants: [string[], string, boolean][] = [
  [['team.remove'], 'team.remove', true],
  [['team.invite'], 'team.remove', false],
  [['organization.remove'], 'team.remove', false],
  [['team.*'], 'team.remove', true],
  [['team.*'], 'team.read', true],
  [['team.*'], 'organization.remove', false],
  [['*.remove'], 'team.remove', true],
  [['*.remove'], 'organization.remove', true],
  [['*.remove'], 'team.invite', false],
  [['*.read'], 'eventType.read', true],
  [['*.read'], 'eventType.update', false],
  [['*.*'], 'schedule.delete', true],
  [['*.*'], 'organization.changeMemberRole', true],
  [['eventType.*'], 'eventType.update', true],
  [['eventType.read', 'eventType.update'], 'eventType.update', true],
  [[], 'eventType.read', false],
  [['eventType.read.x', 'a.b.c', 'garbage', '*'], 'eventType.read', false],
  [['EventType.read'], 'eventType.read', false],
  [['eventType.read '], 'eventType.read', false],
  [['role.*'], 'role.*', true],
  [['role.read'], 'role.*', false],
  [['*.*'], 'a.b.c', false],
  [['*.*'], 'nodot', false],
];
for (const [held, required, expected] of grants) {
  test(`permissionGrants(${JSON.stringify(held)}, ${required}) is ${expected}`, (t) => {
    t.is(permissionGrants(held, required), expected);
  });
}
