// iCalendar reading and writing (shared/calendars/src/icalendar.ts) and the credentials box,
// without a server: time zones, recurrence exceptions, floating and all-day times, the written event.
import { CredentialsBox } from '@sched/calendars/credentials-box';
import { busyIntervalsOf, eventToICalendar } from '@sched/calendars/icalendar';
import test from 'ava';

const calendar = (...body: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...body, 'END:VCALENDAR', ''].join('\r\n');
const range = { start: new Date('2031-03-01T00:00:00Z'), end: new Date('2031-03-31T00:00:00Z') };
const iso = (list: Array<{ start: Date; end: Date }>) =>
  list.map((b) => [b.start.toISOString(), b.end.toISOString()]).sort((a, b) => a[0]!.localeCompare(b[0]!));

test('a weekly series: an exception moved, one cancelled, one made transparent, and an EXDATE', (t) => {
  const ics = calendar(
    'BEGIN:VEVENT',
    'UID:series',
    'DTSTAMP:20310101T000000Z',
    'DTSTART:20310303T090000Z',
    'DTEND:20310303T100000Z',
    'RRULE:FREQ=WEEKLY;COUNT=5',
    'EXDATE:20310331T090000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:series',
    'DTSTAMP:20310101T000000Z',
    'RECURRENCE-ID:20310310T090000Z',
    'DTSTART:20310310T140000Z',
    'DTEND:20310310T150000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:series',
    'DTSTAMP:20310101T000000Z',
    'RECURRENCE-ID:20310317T090000Z',
    'DTSTART:20310317T090000Z',
    'DTEND:20310317T100000Z',
    'STATUS:CANCELLED',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:series',
    'DTSTAMP:20310101T000000Z',
    'RECURRENCE-ID:20310324T090000Z',
    'DTSTART:20310324T090000Z',
    'DTEND:20310324T100000Z',
    'TRANSP:TRANSPARENT',
    'END:VEVENT',
  );
  t.deepEqual(iso(busyIntervalsOf(ics, range, 'UTC')), [
    ['2031-03-03T09:00:00.000Z', '2031-03-03T10:00:00.000Z'],
    ['2031-03-10T14:00:00.000Z', '2031-03-10T15:00:00.000Z'],
  ]);
});

test('a TZID given by a VTIMEZONE that is not an IANA name (as Outlook writes them)', (t) => {
  const ics = calendar(
    'BEGIN:VTIMEZONE',
    'TZID:W. Europe Standard Time',
    'BEGIN:STANDARD',
    'DTSTART:16010101T030000',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:16010101T020000',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'UID:outlook',
    'DTSTAMP:20310101T000000Z',
    'DTSTART;TZID=W. Europe Standard Time:20310305T100000',
    'DTEND;TZID=W. Europe Standard Time:20310305T110000',
    'END:VEVENT',
  );
  t.deepEqual(iso(busyIntervalsOf(ics, range, 'America/New_York')), [
    ['2031-03-05T09:00:00.000Z', '2031-03-05T10:00:00.000Z'],
  ]);
});

test('floating times and all-day events are read in the host’s zone; an all-day event without DTEND lasts its day', (t) => {
  const ics = calendar(
    'BEGIN:VEVENT',
    'UID:floating',
    'DTSTAMP:20310101T000000Z',
    'DTSTART:20310305T100000',
    'DTEND:20310305T110000',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:day',
    'DTSTAMP:20310101T000000Z',
    'DTSTART;VALUE=DATE:20310306',
    'END:VEVENT',
  );
  t.deepEqual(iso(busyIntervalsOf(ics, range, 'America/New_York')), [
    ['2031-03-05T15:00:00.000Z', '2031-03-05T16:00:00.000Z'],
    ['2031-03-06T05:00:00.000Z', '2031-03-07T05:00:00.000Z'],
  ]);
});

test('events outside the range are left out', (t) => {
  const ics = calendar(
    'BEGIN:VEVENT',
    'UID:late',
    'DTSTAMP:20310101T000000Z',
    'DTSTART:20310415T100000Z',
    'DTEND:20310415T110000Z',
    'END:VEVENT',
  );
  t.deepEqual(busyIntervalsOf(ics, range, 'UTC'), []);
});

test('the event a booking becomes: UTC times, organizer, the attendee invited, and it reads back as busy', (t) => {
  const folded = eventToICalendar({
    uid: 'abc@sched',
    title: 'Intro call with Ada',
    description: 'Line one\nLine two, with a comma; and a semicolon',
    start: new Date('2031-03-05T10:00:00Z'),
    end: new Date('2031-03-05T10:30:00Z'),
    timeZone: 'Europe/Berlin',
    organizer: { email: 'host@example.com', name: 'Host' },
    attendees: [{ email: 'ada@example.com', name: 'Ada' }],
  });
  const ics = folded.replace(/\r\n /g, '');
  t.regex(ics, /UID:abc@sched/);
  t.regex(ics, /DTSTART:20310305T100000Z/);
  t.regex(ics, /ORGANIZER;CN=Host:mailto:host@example.com/);
  t.regex(ics, /ATTENDEE;[^\r\n]*CN=Ada[^\r\n]*:mailto:ada@example.com/);
  t.regex(ics, /DESCRIPTION:Line one\\nLine two\\, with a comma\\; and a semicolon/);
  t.deepEqual(iso(busyIntervalsOf(ics, range, 'UTC')), [
    ['2031-03-05T10:00:00.000Z', '2031-03-05T10:30:00.000Z'],
  ]);
});

test('credentials box: sealed text holds nothing in clear, opens back, a changed byte or another key fails', (t) => {
  const box = new CredentialsBox('k'.repeat(40));
  const credentials = {
    serverUrl: 'https://dav.example.com/',
    username: 'alex',
    password: 'secret-password',
  };
  const sealed = box.seal(credentials);
  t.false(sealed.includes('secret-password'));
  t.false(sealed.includes('alex'));
  t.not(box.seal(credentials), sealed, 'a fresh nonce each time');
  t.deepEqual(box.open(sealed), credentials);
  const parts = sealed.split('.');
  const body = Buffer.from(parts[2]!, 'base64url');
  body[0] = body[0]! ^ 1;
  parts[2] = body.toString('base64url');
  t.throws(() => box.open(parts.join('.')));
  t.throws(() => new CredentialsBox('x'.repeat(40)).open(sealed));
  t.throws(() => new CredentialsBox(undefined).seal(credentials), { message: /ENCRYPTION_KEY/ });
});

test('series that began long ago still block in the range: a daily one since 2000, every other weekday since 1995', (t) => {
  const week = { start: new Date('2031-03-03T00:00:00Z'), end: new Date('2031-03-10T00:00:00Z') };
  const ics = calendar(
    'BEGIN:VEVENT',
    'UID:standup',
    'DTSTAMP:20000101T000000Z',
    'DTSTART;TZID=Europe/Berlin:20000103T093000',
    'DTEND;TZID=Europe/Berlin:20000103T094500',
    'RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR',
    'END:VEVENT',
    // One stand-up of 2010 moved (oddly, but calendars allow it) to this Saturday.
    'BEGIN:VEVENT',
    'UID:standup',
    'DTSTAMP:20000101T000000Z',
    'RECURRENCE-ID;TZID=Europe/Berlin:20100104T093000',
    'DTSTART;TZID=Europe/Berlin:20310308T100000',
    'DTEND;TZID=Europe/Berlin:20310308T101500',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:one-on-one',
    'DTSTAMP:19950101T000000Z',
    // Monday 9 January 1995, then every other week on Monday and Thursday.
    'DTSTART:19950109T150000Z',
    'DTEND:19950109T160000Z',
    'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH',
    'END:VEVENT',
    // This week's Thursday one-on-one moved to Friday.
    'BEGIN:VEVENT',
    'UID:one-on-one',
    'DTSTAMP:19950101T000000Z',
    'RECURRENCE-ID:20310306T150000Z',
    'DTSTART:20310307T080000Z',
    'DTEND:20310307T090000Z',
    'END:VEVENT',
  );
  const busy = iso(busyIntervalsOf(ics, week, 'Europe/Berlin'));
  const standups = busy.filter(([start]) => start!.endsWith('T08:30:00.000Z'));
  t.deepEqual(
    standups.map(([start]) => start!.slice(0, 10)),
    ['2031-03-03', '2031-03-04', '2031-03-05', '2031-03-06', '2031-03-07'],
  );
  // 1995-01-09 to 2031-03-03 is 1886 weeks: an even number, so this week is one of the series'.
  t.deepEqual(
    busy.filter(([start]) => !start!.endsWith('T08:30:00.000Z')),
    [
      ['2031-03-03T15:00:00.000Z', '2031-03-03T16:00:00.000Z'],
      ['2031-03-07T08:00:00.000Z', '2031-03-07T09:00:00.000Z'],
      ['2031-03-08T09:00:00.000Z', '2031-03-08T09:15:00.000Z'],
    ],
  );
});

test('an object ical.js cannot read is left out on its own, without taking the others with it', (t) => {
  const good = ['BEGIN:VEVENT', 'UID:b', 'DTSTART:20310304T090000Z', 'DTEND:20310304T100000Z', 'END:VEVENT'];
  for (const bad of [
    'BEGIN:VCALENDAR\r\nthis is not iCalendar\r\n',
    calendar('BEGIN:VEVENT', 'UID:a', 'DTSTART:20310303T090000Z', 'RRULE:FREQ=FORTNIGHTLY', 'END:VEVENT'),
    calendar('BEGIN:VEVENT', 'UID:a', 'DTSTART:2031-03-03', 'END:VEVENT'),
  ])
    t.deepEqual(busyIntervalsOf(bad, range, 'UTC'), []);
  // An event without DTSTART beside a good one: the good one still blocks.
  t.deepEqual(
    iso(busyIntervalsOf(calendar('BEGIN:VEVENT', 'UID:a', 'SUMMARY:x', 'END:VEVENT', ...good), range, 'UTC')),
    [['2031-03-04T09:00:00.000Z', '2031-03-04T10:00:00.000Z']],
  );
});
