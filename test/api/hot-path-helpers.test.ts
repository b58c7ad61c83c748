import { ReadVersions } from '@sched/api/auth/read-versions';
import { validateParams } from '@sched/api/routing/validate';
import { memoized } from '@sched/kit/memoized';
import test from 'ava';
import { z } from 'zod';

// Helpers of the API read path that replace per-request allocations (issue 22): each must answer
// exactly what the code it replaced answered.

test('ReadVersions answers as a Map filled key by key, a repeated key included', (t) => {
  const keys = ['user:1', 'client:c', 'team:2', 'user:1'];
  const values = [3, 0, 7, 3];
  const view = new ReadVersions(keys, values);
  const map = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) map.set(keys[i]!, values[i]!);
  for (const key of [...keys, 'org:9']) {
    t.is(view.get(key), map.get(key));
    t.is(view.has(key), map.has(key));
  }
  t.is(view.size, map.size);
  t.deepEqual([...view], [...map]);
  t.deepEqual([...view.keys()], [...map.keys()]);
  const seen: Array<[string, number]> = [];
  view.forEach((value, key) => {
    seen.push([key, value]);
  });
  t.deepEqual(seen, [...map.entries()]);
  // A value the read did not return counts as version 0, as before.
  t.is(new ReadVersions(['a'], []).get('a'), 0);
});

test('validateParams: the same text parses to the same (frozen) value; failures stay 400s', (t) => {
  const schema = z.strictObject({ orgId: z.coerce.number().int().positive(), slug: z.string() });
  const first = validateParams(schema, { orgId: '12', slug: 'a' });
  t.deepEqual(first, { orgId: 12, slug: 'a' });
  t.is(validateParams(schema, { orgId: '12', slug: 'a' }), first);
  t.true(Object.isFrozen(first));
  t.deepEqual(validateParams(schema, { orgId: '13', slug: 'a' }), { orgId: 13, slug: 'a' });
  // Values holding '/' (a decoded %2F) are parsed afresh: the memo key could not tell them apart.
  t.deepEqual(validateParams(schema, { orgId: '12', slug: 'a/b' }), { orgId: 12, slug: 'a/b' });
  for (let i = 0; i < 2; i++) {
    const error = t.throws(() => validateParams(schema, { orgId: 'x', slug: 'a' }));
    t.regex(error.message, /^Invalid params: params\.orgId /);
  }
});

test('validateParams: a shared (frozen) raw object is parsed once per schema, each schema its own', (t) => {
  const ids = z.strictObject({ teamId: z.coerce.number().int().positive() });
  const names = z.strictObject({ teamId: z.string() });
  const raw = Object.freeze({ teamId: '7' });
  const parsed = validateParams(ids, raw);
  t.deepEqual(parsed, { teamId: 7 });
  t.is(validateParams(ids, raw), parsed);
  t.deepEqual(validateParams(names, raw), { teamId: '7' }, 'another schema on the same object');
  t.deepEqual(validateParams(ids, raw), { teamId: 7 });
  const decoded = Object.freeze({ teamId: 'a/b' });
  t.deepEqual(validateParams(names, decoded), { teamId: 'a/b' });
  t.false(Object.isFrozen(validateParams(names, decoded)), 'a fresh parse is not shared');
  const bad = Object.freeze({ teamId: 'x' });
  for (let i = 0; i < 2; i++)
    t.throws(() => validateParams(ids, bad), { message: /^Invalid params: params\.teamId / });
});

test('memoized: one build per key, emptied when full', (t) => {
  let builds = 0;
  const key = memoized((id: number) => {
    builds++;
    return `k:${id}`;
  }, 2);
  t.is(key(1), 'k:1');
  t.is(key(1), 'k:1');
  t.is(builds, 1);
  key(2);
  key(3); // full: emptied, then 3 kept
  key(1);
  t.is(builds, 4);
});
