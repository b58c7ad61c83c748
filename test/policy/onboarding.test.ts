import {
  CALENDAR_PROVIDERS,
  canonicalTimeZone,
  isCalendarProvider,
  isValidName,
  isValidUsername,
  isWeekStart,
  normalizeUsername,
  TIME_ZONES,
  WEEK_STARTS,
} from '@sched/policy/onboarding';
import test from 'ava';

test('time zones: IANA names are accepted and canonicalised, anything else is refused', (t) => {
  t.is(canonicalTimeZone('Europe/Paris'), 'Europe/Paris');
  t.is(canonicalTimeZone('europe/paris'), 'Europe/Paris');
  t.is(canonicalTimeZone(' America/New_York '), 'America/New_York');
  t.is(canonicalTimeZone('UTC'), 'UTC');
  t.is(canonicalTimeZone('utc'), 'UTC');
  // An alias stays as typed, as in the API (not Asia/Calcutta).
  t.is(canonicalTimeZone('Asia/Kolkata'), 'Asia/Kolkata');
  for (const bad of [
    '',
    '+02:00',
    'GMT+2',
    'Mars/Olympus_Mons',
    'Europe/Paris\u0000',
    '../etc/passwd',
    'x'.repeat(80),
  ]) {
    t.is(canonicalTimeZone(bad), null, JSON.stringify(bad));
  }
});

test('the zone list starts with UTC, has no duplicates, and every entry validates', (t) => {
  t.is(TIME_ZONES[0], 'UTC');
  t.is(new Set(TIME_ZONES).size, TIME_ZONES.length);
  t.true(TIME_ZONES.length > 300);
  for (const zone of TIME_ZONES) t.is(canonicalTimeZone(zone), zone);
});

test('usernames: 2-40 of a-z 0-9 . _ -, starting with a letter or digit, lower-cased', (t) => {
  t.is(normalizeUsername('  Ada.Lovelace '), 'ada.lovelace');
  for (const ok of ['ad', 'ada_l-1.x', 'a'.repeat(40), '9lives']) t.true(isValidUsername(ok), ok);
  for (const bad of ['a', 'a'.repeat(41), '-ada', 'Ada', 'ada lovelace', 'ädä', ''])
    t.false(isValidUsername(bad), bad);
});

test('names: 1-100 characters after trimming, no control characters', (t) => {
  t.true(isValidName('Ada Lovelace'));
  t.true(isValidName(' x '));
  t.false(isValidName('   '));
  t.false(isValidName('a'.repeat(101)));
  t.false(isValidName('Ada\u0007'));
});

test('week starts and calendar providers are closed lists', (t) => {
  t.deepEqual(
    [...WEEK_STARTS],
    ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  );
  t.true(isWeekStart('Sunday'));
  t.false(isWeekStart('sunday'));
  t.deepEqual([...CALENDAR_PROVIDERS], ['google', 'outlook', 'apple', 'caldav']);
  t.true(isCalendarProvider('caldav'));
  t.false(isCalendarProvider('exchange'));
  t.false(isCalendarProvider('__proto__'));
});
