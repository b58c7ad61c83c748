// Pure availability and slot math (@sched/policy/availability).
import {
  availabilityProblems,
  availabilityWindows,
  expandGroups,
  groupRules,
  mergeWindows,
  minutesOf,
  overlapsAny,
  overlapTest,
  slotStarts,
  withinWindows,
} from '@sched/policy/availability';
import test from 'ava';
import { DateTime } from 'luxon';

const ms = (iso: string) => Date.parse(iso);
const iso = (value: number) => new Date(value).toISOString();
const local = (value: string, zone: string) => DateTime.fromISO(value, { zone }).toMillis();

test('minutesOf reads HH:MM and HH:MM:SS up to 24:00', (t) => {
  t.is(minutesOf('00:00'), 0);
  t.is(minutesOf('09:30'), 570);
  t.is(minutesOf('17:00:00'), 1020);
  t.is(minutesOf('24:00'), 1440);
  for (const bad of ['24:01', '9:00', '12:60', 'noon', '']) t.is(minutesOf(bad), null, bad);
});

test('groups expand to one rule per day and group back to the same shape', (t) => {
  const groups = [
    { days: ['Monday', 'Wednesday'] as const, startTime: '08:00', endTime: '12:00' },
    { days: ['Monday'] as const, startTime: '13:00', endTime: '17:30' },
  ].map((g) => ({ ...g, days: [...g.days] }));
  const rules = expandGroups(groups);
  t.deepEqual(rules, [
    { weekday: 1, startTime: '08:00', endTime: '12:00' },
    { weekday: 1, startTime: '13:00', endTime: '17:30' },
    { weekday: 3, startTime: '08:00', endTime: '12:00' },
  ]);
  t.deepEqual(groupRules(rules), groups);
  t.deepEqual(groupRules([{ weekday: 7, startTime: '09:00:00', endTime: '24:00:00' }]), [
    { days: ['Sunday'], startTime: '09:00', endTime: '24:00' },
  ]);
});

test('availabilityProblems: start before end, no overlaps on the same day (touching allowed)', (t) => {
  t.deepEqual(
    availabilityProblems([
      { weekday: 1, startTime: '09:00', endTime: '12:00' },
      { weekday: 1, startTime: '12:00', endTime: '13:00' },
      { weekday: 2, startTime: '11:00', endTime: '24:00' },
    ]),
    [],
  );
  t.is(availabilityProblems([{ weekday: 1, startTime: '12:00', endTime: '12:00' }]).length, 1);
  t.is(
    availabilityProblems([
      { weekday: 1, startTime: '09:00', endTime: '12:00' },
      { weekday: 1, startTime: '11:59', endTime: '13:00' },
    ]).length,
    1,
  );
});

test('windows are cut in the schedule zone and joined across midnight', (t) => {
  const rules = [
    { weekday: 1, startTime: '20:00', endTime: '24:00' },
    { weekday: 2, startTime: '00:00', endTime: '02:00' },
  ];
  const windows = availabilityWindows(
    rules,
    'Asia/Tokyo',
    ms('2031-06-08T00:00:00Z'),
    ms('2031-06-12T00:00:00Z'),
  );
  t.deepEqual(
    windows.map((w) => [iso(w.start), iso(w.end)]),
    [['2031-06-09T11:00:00.000Z', '2031-06-09T17:00:00.000Z']],
  );
});

test('windows across DST: 09:00-17:00 stays 09:00-17:00 local on both sides of the change', (t) => {
  const rules = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, startTime: '09:00', endTime: '17:00' }));
  const zone = 'Europe/Berlin';
  const windows = availabilityWindows(
    rules,
    zone,
    local('2026-03-28T00:00', zone),
    local('2026-03-31T00:00', zone),
  );
  t.deepEqual(
    windows.map((w) => iso(w.start)),
    ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z'],
  );
  // A window over the 02:00-03:00 gap on spring-forward day is one hour shorter.
  const night = availabilityWindows(
    [{ weekday: 7, startTime: '01:00', endTime: '04:00' }],
    zone,
    local('2026-03-29T00:00', zone),
    local('2026-03-30T00:00', zone),
  );
  t.is((night[0]!.end - night[0]!.start) / 3_600_000, 2);
  // And one hour longer on fall-back day.
  const autumn = availabilityWindows(
    [{ weekday: 7, startTime: '01:00', endTime: '04:00' }],
    zone,
    local('2026-10-25T00:00', zone),
    local('2026-10-26T00:00', zone),
  );
  t.is((autumn[0]!.end - autumn[0]!.start) / 3_600_000, 4);
});

test('slotStarts: steps of the event length that fit entirely, within [from, to]', (t) => {
  const windows = [{ start: ms('2031-06-09T09:00:00Z'), end: ms('2031-06-09T11:45:00Z') }];
  t.deepEqual(slotStarts(windows, 60, ms('2031-06-09T00:00:00Z'), ms('2031-06-10T00:00:00Z')).map(iso), [
    '2031-06-09T09:00:00.000Z',
    '2031-06-09T10:00:00.000Z',
  ]);
  t.deepEqual(slotStarts(windows, 45, ms('2031-06-09T09:30:00Z'), ms('2031-06-09T10:30:00Z')).map(iso), [
    '2031-06-09T09:45:00.000Z',
    '2031-06-09T10:30:00.000Z',
  ]);
  t.deepEqual(slotStarts([], 30, 0, Number.MAX_SAFE_INTEGER), []);
});

test('withinWindows, overlapsAny and mergeWindows', (t) => {
  const windows = [
    { start: 0, end: 10 },
    { start: 20, end: 30 },
  ];
  t.true(withinWindows(windows, 0, 10));
  t.true(withinWindows(windows, 22, 25));
  t.false(withinWindows(windows, 5, 25));
  t.false(withinWindows(windows, 9, 11));
  t.true(overlapsAny(windows, 9, 11));
  t.false(overlapsAny(windows, 10, 20), 'touching is not overlapping');
  t.deepEqual(
    mergeWindows([
      { start: 20, end: 30 },
      { start: 0, end: 10 },
      { start: 10, end: 15 },
      { start: 25, end: 40 },
    ]),
    [
      { start: 0, end: 15 },
      { start: 20, end: 40 },
    ],
  );
});

test('overlapTest answers as overlapsAny (overlapping, touching, nested, empty intervals)', (t) => {
  const busy = [
    { start: 50, end: 60 },
    { start: 10, end: 20 },
    { start: 20, end: 25 },
    { start: 12, end: 14 },
    { start: 40, end: 40 },
    { start: 70, end: 90 },
    { start: 75, end: 80 },
  ];
  const test = overlapTest(busy);
  for (let start = 0; start <= 100; start++) {
    for (let end = start + 1; end <= 101; end += 3) {
      t.is(test(start, end), overlapsAny(busy, start, end), `[${start}, ${end})`);
    }
  }
  t.false(overlapTest([])(0, 10));
});
