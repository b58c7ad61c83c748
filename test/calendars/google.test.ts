import { CredentialsRefusedError, ProviderUnavailableError } from '@sched/calendars/connector';
import { GOOGLE_SCOPES, googleProvider } from '@sched/calendars/providers/google';
import { ScopesNotGrantedError } from '@sched/calendars/providers/oauth-tokens';
import test from 'ava';
import nock from 'nock';
import {
  GOOGLE_ORIGINS,
  googleConfig,
  interceptProviders,
  oauthCredentials,
  providerConnector,
  providerFetch,
} from '../support/calendar-providers.ts';

// The Google connector and its OAuth pieces against Google's documented request and response
// shapes (OAuth 2.0 for web server apps, Calendar API v3 calendarList / freeBusy / events), with
// nock standing in for Google. Nothing leaves the process (nock.disableNetConnect).

// Every request goes through the outbound module's fetch, as in production (nock answers for the provider).
const outbound = providerFetch;
const config = googleConfig();
const provider = googleProvider(config);
const API = '/calendar/v3';

interceptProviders(test);

const connector = (credentials = oauthCredentials()) => providerConnector(provider, credentials);

const calendarList = {
  kind: 'calendar#calendarList',
  items: [
    {
      kind: 'calendar#calendarListEntry',
      id: 'ada@example.com',
      summary: 'ada@example.com',
      accessRole: 'owner',
      primary: true,
    },
    {
      kind: 'calendar#calendarListEntry',
      id: 'team@group.calendar.google.com',
      summary: 'Team',
      accessRole: 'writer',
    },
    {
      kind: 'calendar#calendarListEntry',
      id: 'en.uk#holiday@group.v.calendar.google.com',
      summary: 'Holidays',
      accessRole: 'reader',
    },
  ],
};

test.serial(
  'authorization redirect: code flow with PKCE S256, offline access, consent, narrow scopes',
  (t) => {
    const url = new URL(
      provider.authorizationUrl({
        redirectUri: 'https://sched.example/auth/calendars/oauth/google/callback',
        state: 'state-123',
        codeChallenge: 'challenge-abc',
      }),
    );
    t.is(`${url.origin}${url.pathname}`, config.authUrl);
    t.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: config.clientId,
      redirect_uri: 'https://sched.example/auth/calendars/oauth/google/callback',
      response_type: 'code',
      scope: GOOGLE_SCOPES.join(' '),
      state: 'state-123',
      code_challenge: 'challenge-abc',
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
    });
    t.false(url.searchParams.get('scope')!.split(' ').includes('https://www.googleapis.com/auth/calendar'));
  },
);

test.serial('token exchange: code, verifier and redirect URI with the client credentials', async (t) => {
  const token = nock(GOOGLE_ORIGINS.oauth2)
    .post('/token', {
      grant_type: 'authorization_code',
      code: '4/0Adeu5BW-code',
      code_verifier: 'verifier-xyz',
      redirect_uri: 'https://sched.example/cb',
      client_id: config.clientId,
      client_secret: config.clientSecret,
    })
    .reply(200, {
      access_token: 'ya29.a0-access',
      expires_in: 3599,
      refresh_token: '1//0g-refresh',
      scope: GOOGLE_SCOPES.join(' '),
      token_type: 'Bearer',
    });
  const before = Date.now();
  const credentials = await provider.exchangeCode(outbound, {
    code: '4/0Adeu5BW-code',
    codeVerifier: 'verifier-xyz',
    redirectUri: 'https://sched.example/cb',
  });
  t.true(token.isDone());
  t.is(credentials.accessToken, 'ya29.a0-access');
  t.is(credentials.refreshToken, '1//0g-refresh');
  const expiresAt = Date.parse(credentials.expiresAt);
  t.true(expiresAt >= before + 3599_000 && expiresAt <= Date.now() + 3599_000);
});

test.serial(
  'token exchange: access granted without one of the scopes (unticked at Google) is refused',
  async (t) => {
    nock(GOOGLE_ORIGINS.oauth2)
      .post('/token')
      .reply(200, {
        access_token: 'ya29.a0-access',
        expires_in: 3599,
        refresh_token: '1//0g-refresh',
        scope: GOOGLE_SCOPES.filter((scope) => !scope.endsWith('freebusy')).join(' '),
        token_type: 'Bearer',
      });
    const error = await t.throwsAsync(
      provider.exchangeCode(outbound, {
        code: 'c',
        codeVerifier: 'v',
        redirectUri: 'https://sched.example/cb',
      }),
      { instanceOf: ScopesNotGrantedError },
    );
    t.regex(error?.message ?? '', /calendar\.events\.freebusy/);
    // No `scope` in the answer: what was asked was granted (RFC 6749 §5.1).
    nock(GOOGLE_ORIGINS.oauth2)
      .post('/token')
      .reply(200, { access_token: 'ya29.b', expires_in: 3599, refresh_token: '1//b', token_type: 'Bearer' });
    const credentials = await provider.exchangeCode(outbound, {
      code: 'c',
      codeVerifier: 'v',
      redirectUri: 'https://sched.example/cb',
    });
    t.is(credentials.accessToken, 'ya29.b');
  },
);

test.serial('token exchange refused (invalid_grant: a used or expired code)', async (t) => {
  nock(GOOGLE_ORIGINS.oauth2)
    .post('/token')
    .reply(400, { error: 'invalid_grant', error_description: 'Bad Request' });
  await t.throwsAsync(
    provider.exchangeCode(outbound, {
      code: 'used',
      codeVerifier: 'v',
      redirectUri: 'https://sched.example/cb',
    }),
    { instanceOf: CredentialsRefusedError },
  );
});

test.serial(
  'an expired access token is refreshed before the request; the refresh token is kept',
  async (t) => {
    const refresh = nock(GOOGLE_ORIGINS.oauth2)
      .post('/token', {
        grant_type: 'refresh_token',
        refresh_token: 'refresh-1',
        client_id: config.clientId,
        client_secret: config.clientSecret,
      })
      .reply(200, {
        access_token: 'ya29.fresh',
        expires_in: 3599,
        scope: GOOGLE_SCOPES.join(' '),
        token_type: 'Bearer',
      });
    const list = nock(GOOGLE_ORIGINS.api, { reqheaders: { authorization: 'Bearer ya29.fresh' } })
      .get(`${API}/users/me/calendarList`)
      .query(true)
      .reply(200, calendarList);
    const { calendar, store } = connector(oauthCredentials(-10));
    const calendars = await calendar.listCalendars();
    t.true(refresh.isDone() && list.isDone());
    t.is(store.saved.length, 1);
    t.like(store.saved[0], { accessToken: 'ya29.fresh', refreshToken: 'refresh-1' });
    t.deepEqual(calendars, [
      { externalId: 'ada@example.com', name: 'ada@example.com', readOnly: false, primary: true, owned: true },
      // Shared with the account (writer) or subscribed to (reader): not its own.
      {
        externalId: 'team@group.calendar.google.com',
        name: 'Team',
        readOnly: false,
        primary: false,
        owned: false,
      },
      {
        externalId: 'en.uk#holiday@group.v.calendar.google.com',
        name: 'Holidays',
        readOnly: true,
        primary: false,
        owned: false,
      },
    ]);
    nock(GOOGLE_ORIGINS.api).get(`${API}/users/me/calendarList`).query(true).reply(200, calendarList);
    t.is(await calendar.account(), 'ada@example.com', "the primary calendar's id is the account");
  },
);

test.serial('a token that expires within the minute is refreshed too', async (t) => {
  const refresh = nock(GOOGLE_ORIGINS.oauth2)
    .post('/token')
    .reply(200, { access_token: 'ya29.early', expires_in: 3599 });
  nock(GOOGLE_ORIGINS.api, { reqheaders: { authorization: 'Bearer ya29.early' } })
    .get(`${API}/users/me/calendarList`)
    .query(true)
    .reply(200, calendarList);
  await connector(oauthCredentials(30)).calendar.listCalendars();
  t.true(refresh.isDone());
});

test.serial(
  'refresh answered invalid_grant: CredentialsRefusedError (the connection needs reauth)',
  async (t) => {
    nock(GOOGLE_ORIGINS.oauth2)
      .post('/token')
      .reply(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    const { calendar, store } = connector(oauthCredentials(-10));
    const error = await t.throwsAsync(calendar.listCalendars(), { instanceOf: CredentialsRefusedError });
    t.notRegex(error.message, /refresh-1/, 'no credential in the message');
    t.deepEqual(store.saved, []);
  },
);

test.serial('a 401 gets one refresh and one retry', async (t) => {
  nock(GOOGLE_ORIGINS.api, { reqheaders: { authorization: 'Bearer access-1' } })
    .get(`${API}/users/me/calendarList`)
    .query(true)
    .reply(401, {
      error: {
        code: 401,
        message: 'Request had invalid authentication credentials.',
        status: 'UNAUTHENTICATED',
      },
    });
  const refresh = nock(GOOGLE_ORIGINS.oauth2)
    .post('/token')
    .reply(200, { access_token: 'ya29.retry', expires_in: 3599 });
  nock(GOOGLE_ORIGINS.api, { reqheaders: { authorization: 'Bearer ya29.retry' } })
    .get(`${API}/users/me/calendarList`)
    .query(true)
    .reply(200, calendarList);
  const { calendar, store } = connector();
  t.is((await calendar.listCalendars()).length, 3);
  t.true(refresh.isDone());
  t.is(store.saved[0]?.accessToken, 'ya29.retry');
});

test.serial('a 401 after the refresh: CredentialsRefusedError, no third try', async (t) => {
  const api = nock(GOOGLE_ORIGINS.api)
    .get(`${API}/users/me/calendarList`)
    .query(true)
    .times(2)
    .reply(401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
  nock(GOOGLE_ORIGINS.oauth2).post('/token').reply(200, { access_token: 'ya29.still-bad', expires_in: 3599 });
  await t.throwsAsync(connector().calendar.listCalendars(), { instanceOf: CredentialsRefusedError });
  t.true(api.isDone());
});

test.serial('free/busy: one freeBusy query for the chosen calendars, in the host time zone', async (t) => {
  const query = nock(GOOGLE_ORIGINS.api, { reqheaders: { authorization: 'Bearer access-1' } })
    .post(`${API}/freeBusy`, {
      timeMin: '2026-12-01T00:00:00.000Z',
      timeMax: '2026-12-08T00:00:00.000Z',
      timeZone: 'Europe/Berlin',
      items: [
        { id: 'ada@example.com' },
        { id: 'team@group.calendar.google.com' },
        { id: 'gone@group.calendar.google.com' },
      ],
    })
    .reply(200, {
      kind: 'calendar#freeBusy',
      timeMin: '2026-12-01T00:00:00.000Z',
      timeMax: '2026-12-08T00:00:00.000Z',
      calendars: {
        'ada@example.com': { busy: [{ start: '2026-12-01T09:00:00Z', end: '2026-12-01T10:00:00Z' }] },
        'team@group.calendar.google.com': {
          busy: [{ start: '2026-12-02T13:00:00+01:00', end: '2026-12-02T14:30:00+01:00' }],
        },
        'gone@group.calendar.google.com': { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] },
      },
    });
  const busy = await connector().calendar.busyTimes(
    ['ada@example.com', 'team@group.calendar.google.com', 'gone@group.calendar.google.com'],
    { start: new Date('2026-12-01T00:00:00Z'), end: new Date('2026-12-08T00:00:00Z') },
    'Europe/Berlin',
  );
  t.true(query.isDone());
  t.deepEqual(
    busy.map((interval) => [interval.start.toISOString(), interval.end.toISOString()]),
    [
      ['2026-12-01T09:00:00.000Z', '2026-12-01T10:00:00.000Z'],
      ['2026-12-02T12:00:00.000Z', '2026-12-02T13:30:00.000Z'],
    ],
  );
});

test.serial(
  'free/busy: a calendar Google could not read, a 5xx or a dead connection is "unavailable"',
  async (t) => {
    const range = { start: new Date('2026-12-01T00:00:00Z'), end: new Date('2026-12-02T00:00:00Z') };
    nock(GOOGLE_ORIGINS.api)
      .post(`${API}/freeBusy`)
      .reply(200, {
        calendars: { 'ada@example.com': { errors: [{ domain: 'global', reason: 'backendError' }] } },
      });
    await t.throwsAsync(connector().calendar.busyTimes(['ada@example.com'], range, 'UTC'), {
      instanceOf: ProviderUnavailableError,
    });
    nock(GOOGLE_ORIGINS.api)
      .post(`${API}/freeBusy`)
      .reply(503, { error: { code: 503, message: 'Backend Error' } });
    await t.throwsAsync(connector().calendar.busyTimes(['ada@example.com'], range, 'UTC'), {
      instanceOf: ProviderUnavailableError,
    });
    nock(GOOGLE_ORIGINS.api).post(`${API}/freeBusy`).replyWithError('socket hang up');
    await t.throwsAsync(connector().calendar.busyTimes(['ada@example.com'], range, 'UTC'), {
      instanceOf: ProviderUnavailableError,
    });
  },
);

const draft = {
  uid: 'booking-uid-1@sched.example',
  title: '30 min meeting between Ada Lovelace and Bob Booker',
  description: 'Cancel: https://sched.example/booking/booking-uid-1/cancel',
  start: new Date('2026-12-03T10:00:00Z'),
  end: new Date('2026-12-03T10:30:00Z'),
  timeZone: 'Europe/Berlin',
  organizer: { email: 'ada@example.com', name: 'Ada Lovelace' },
  attendees: [{ email: 'bob@example.net', name: 'Bob Booker' }],
};

const eventFields = {
  summary: draft.title,
  description: draft.description,
  start: { dateTime: '2026-12-03T10:00:00.000Z', timeZone: 'Europe/Berlin' },
  end: { dateTime: '2026-12-03T10:30:00.000Z', timeZone: 'Europe/Berlin' },
  attendees: [{ email: 'bob@example.net', displayName: 'Bob Booker' }],
  guestsCanModify: false,
};

test.serial(
  'events: insert (attendee invited), patch on reschedule, delete on cancel; sendUpdates=all',
  async (t) => {
    const path = `${API}/calendars/${encodeURIComponent('ada@example.com')}/events`;
    const insert = nock(GOOGLE_ORIGINS.api)
      .post(path, { ...eventFields, iCalUID: draft.uid })
      .query({ sendUpdates: 'all' })
      .reply(200, { kind: 'calendar#event', id: 'evt123', status: 'confirmed', iCalUID: draft.uid });
    const moved = {
      ...draft,
      start: new Date('2026-12-04T08:00:00Z'),
      end: new Date('2026-12-04T08:30:00Z'),
    };
    const patch = nock(GOOGLE_ORIGINS.api)
      .patch(`${path}/evt123`, {
        ...eventFields,
        start: { dateTime: '2026-12-04T08:00:00.000Z', timeZone: 'Europe/Berlin' },
        end: { dateTime: '2026-12-04T08:30:00.000Z', timeZone: 'Europe/Berlin' },
      })
      .query({ sendUpdates: 'all' })
      .reply(200, { kind: 'calendar#event', id: 'evt123' });
    const remove = nock(GOOGLE_ORIGINS.api).delete(`${path}/evt123`).query({ sendUpdates: 'all' }).reply(204);
    const { calendar } = connector();
    t.deepEqual(await calendar.createEvent('ada@example.com', draft), { externalId: 'evt123' });
    await calendar.updateEvent('ada@example.com', 'evt123', moved);
    await calendar.deleteEvent('ada@example.com', 'evt123');
    t.true(insert.isDone() && patch.isDone() && remove.isDone());
  },
);

test.serial(
  'events: a retried insert (409 duplicate iCalUID) finds the event; a delete of a gone event succeeds',
  async (t) => {
    const path = `${API}/calendars/${encodeURIComponent('ada@example.com')}/events`;
    nock(GOOGLE_ORIGINS.api)
      .post(path)
      .query(true)
      .reply(409, { error: { code: 409, message: 'The requested identifier already exists.' } });
    nock(GOOGLE_ORIGINS.api)
      .get(path)
      .query({ iCalUID: draft.uid, showDeleted: 'false' })
      .reply(200, { kind: 'calendar#events', items: [{ id: 'evt-earlier', iCalUID: draft.uid }] });
    nock(GOOGLE_ORIGINS.api)
      .delete(`${path}/evt-gone`)
      .query(true)
      .reply(410, { error: { code: 410, message: 'Resource has been deleted' } });
    const { calendar } = connector();
    t.deepEqual(await calendar.createEvent('ada@example.com', draft), { externalId: 'evt-earlier' });
    await t.notThrowsAsync(calendar.deleteEvent('ada@example.com', 'evt-gone'));
  },
);

test.serial('revoke on disconnect: the refresh token to the revocation endpoint', async (t) => {
  const revoke = nock(GOOGLE_ORIGINS.oauth2).post('/revoke', { token: 'refresh-1' }).reply(200, {});
  await connector().calendar.revoke!();
  t.true(revoke.isDone());
  nock(GOOGLE_ORIGINS.oauth2)
    .post('/revoke')
    .reply(400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
  await t.notThrowsAsync(connector().calendar.revoke!(), 'already revoked counts as done');
});

test.serial(
  'endpoints on a special-use address are refused by the outbound rule, nothing sent',
  async (t) => {
    const local = googleProvider({ ...config, calendarApiUrl: 'https://127.0.0.1:9/calendar/v3' });
    const calendar = local.connector({
      credentials: oauthCredentials(),
      fetch: outbound,
      saveCredentials: async () => {},
    });
    const error = await t.throwsAsync(calendar.listCalendars(), { instanceOf: ProviderUnavailableError });
    t.is((error.cause as Error | undefined)?.name, 'OutboundRefusedError');
  },
);
