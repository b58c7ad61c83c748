import { UNKNOWN_VERSION, VersionedCache } from '@sched/kit/versioned-cache';
import test from 'ava';

const cache = (max = 3, maxAgeMs = 60_000) => new VersionedCache<string>({ max, maxAgeMs });

test('a hit needs exactly the versions the entry was loaded with', (t) => {
  const c = cache();
  c.set('k', 'v', [1, 2]);
  t.is(c.get('k', [1, 2]), 'v');
  t.is(c.get('k', [1, 3]), undefined);
  // A miss on versions drops the entry: the old versions can never match again.
  t.is(c.get('k', [1, 2]), undefined);
  c.set('u', 'v', [UNKNOWN_VERSION]);
  t.is(c.get('u', [UNKNOWN_VERSION]), undefined);
});

test('an entry older than maxAgeMs is a miss', (t) => {
  const c = cache(3, -1);
  c.set('k', 'v', [1]);
  t.is(c.get('k', [1]), undefined);
});

test('over the bound, the oldest entry not read since goes; entries in use stay', (t) => {
  const c = cache(3);
  c.set('a', 'A', [1]);
  c.set('b', 'B', [1]);
  c.set('c', 'C', [1]);
  t.is(c.get('a', [1]), 'A'); // a is in use
  c.set('d', 'D', [1]); // b is the oldest unread one
  t.is(c.size, 3);
  t.is(c.peek('b'), undefined);
  t.is(c.get('a', [1]), 'A');
  t.is(c.get('c', [1]), 'C');
  t.is(c.get('d', [1]), 'D');
  // All read: each gets its second chance, then the oldest of them goes; never the new entry.
  c.set('e', 'E', [1]);
  t.is(c.size, 3);
  t.is(c.peek('c'), undefined);
  t.deepEqual(
    ['a', 'd', 'e'].map((key) => c.peek(key)),
    ['A', 'D', 'E'],
  );
});
