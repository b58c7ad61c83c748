import { DecodedRecords } from '@sched/db/token-store/decoded-records';
import test from 'ava';

const json = (record: unknown) => JSON.stringify(record);

test('the same JSON gives the same parsed record, frozen all the way down', (t) => {
  const records = new DecodedRecords();
  const payload = json({ kind: 'AccessToken', scope: 'PROFILE_READ', extra: { legacy: true } });
  const first = records.decode<{ kind: string; extra: { legacy: boolean } }>(payload, null);
  // A fresh string with the same bytes, as every Redis reply is.
  const second = records.decode<{ kind: string; extra: { legacy: boolean } }>(`${payload} `.trimEnd(), null);
  t.is(first, second);
  t.deepEqual(first, { kind: 'AccessToken', scope: 'PROFILE_READ', extra: { legacy: true } });
  t.true(Object.isFrozen(first));
  t.true(Object.isFrozen(first?.extra));
  t.throws(() => {
    (first as { kind: string }).kind = 'RefreshToken';
  });
});

test('different JSON, a different record; a missing payload is undefined', (t) => {
  const records = new DecodedRecords();
  t.deepEqual(records.decode(json({ exp: 1 }), null), { exp: 1 });
  t.deepEqual(records.decode(json({ exp: 2 }), null), { exp: 2 });
  t.is(records.decode(null, null), undefined);
  t.is(records.decode(undefined, '123'), undefined);
});

test('a consumed mark gives a fresh record carrying it, never a shared one', (t) => {
  const records = new DecodedRecords();
  const payload = json({ kind: 'AuthorizationCode' });
  const plain = records.decode(payload, null);
  const consumed = records.decode<{ consumed?: number }>(payload, '1700000000');
  t.not(consumed, plain);
  t.is(consumed?.consumed, 1700000000);
  t.deepEqual(records.decode(payload, null), { kind: 'AuthorizationCode' });
});

test('at most `max` records are kept: the oldest is parsed again', (t) => {
  const records = new DecodedRecords(2);
  const a = json({ id: 'a' });
  const first = records.decode(a, null);
  records.decode(json({ id: 'b' }), null);
  records.decode(json({ id: 'c' }), null);
  const again = records.decode(a, null);
  t.not(again, first);
  t.deepEqual(again, { id: 'a' });
});
