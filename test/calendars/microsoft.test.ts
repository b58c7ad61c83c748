import { CredentialsRefusedError, ProviderUnavailableError } from '@sched/calendars/connector';
import { MICROSOFT_SCOPES, microsoftProvider } from '@sched/calendars/providers/microsoft';
import test from 'ava';
import nock from 'nock';
import {
  MICROSOFT_ORIGINS,
  microsoftConfig,
  interceptProviders,
  oauthCredentials,
  providerConnector,
  providerFetch,
} from '../support/calendar-providers.ts';

// The Microsoft connector and its OAuth pieces against the documented shapes of the Microsoft
// identity platform (authorization-code flow with PKCE, v2.0 token endpoint) and Microsoft Graph
// v1.0 (me/calendars, calendarView, events), with nock standing in for Microsoft.

// Every request goes through the outbound module's fetch, as in production (nock answers for the provider).
const outbound = providerFetch;
const config = microsoftConfig();
const provider = microsoftProvider(config);
const TOKEN = '/common/oauth2/v2.0/token';

interceptProviders(test);

const connector = (credentials = oauthCredentials()) => providerConnector(provider, credentials);

const calendars = {
  '@odata.context': "https://graph.microsoft.com/v1.0/$metadata#users('ada')/calendars",
  value: [
    {
      id: 'AAMkAGI2-default',
      name: 'Calendar',
      canEdit: true,
      isDefaultCalendar: true,
      owner: { name: 'Ada Lovelace', address: 'ada@contoso.example' },
    },
    {
      id: 'AAMkAGI2-birthdays',
      name: 'Birthdays',
      canEdit: false,
      isDefaultCalendar: false,
      owner: { name: 'Ada Lovelace', address: 'ada@contoso.example' },
    },
    {
      id: 'AAMkAGI2-shared',
      name: "Grace's calendar",
      canEdit: true,
      isDefaultCalendar: false,
      owner: { name: 'Grace Hopper', address: 'Grace@Contoso.example' },
    },
  ],
};

test.serial(
  'authorization redirect: code flow with PKCE S256, offline_access, Calendars.ReadWrite only',
  (t) => {
    const url = new URL(
      provider.authorizationUrl({
        redirectUri: 'https://sched.example/auth/calendars/oauth/microsoft/callback',
        state: 'state-456',
        codeChallenge: 'challenge-def',
      }),
    );
    t.is(`${url.origin}${url.pathname}`, `${MICROSOFT_ORIGINS.login}/common/oauth2/v2.0/authorize`);
    t.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: config.clientId,
      response_type: 'code',
      redirect_uri: 'https://sched.example/auth/calendars/oauth/microsoft/callback',
      response_mode: 'query',
      scope: 'offline_access Calendars.ReadWrite',
      state: 'state-456',
      code_challenge: 'challenge-def',
      code_challenge_method: 'S256',
      prompt: 'select_account',
    });
  },
);

test.serial(
  'token exchange: code, verifier, redirect URI and scopes with the client credentials',
  async (t) => {
    const token = nock(MICROSOFT_ORIGINS.login)
      .post(TOKEN, {
        grant_type: 'authorization_code',
        code: 'M.C507_BAY.2.U.code',
        code_verifier: 'verifier-xyz',
        redirect_uri: 'https://sched.example/cb',
        client_id: config.clientId,
        client_secret: config.clientSecret,
        scope: MICROSOFT_SCOPES.join(' '),
      })
      .reply(200, {
        token_type: 'Bearer',
        scope: 'https://graph.microsoft.com/Calendars.ReadWrite',
        expires_in: 4249,
        ext_expires_in: 4249,
        access_token: 'eyJ0eXAi.access',
        refresh_token: 'M.C507_refresh',
      });
    const credentials = await provider.exchangeCode(outbound, {
      code: 'M.C507_BAY.2.U.code',
      codeVerifier: 'verifier-xyz',
      redirectUri: 'https://sched.example/cb',
    });
    t.true(token.isDone());
    t.like(credentials, { accessToken: 'eyJ0eXAi.access', refreshToken: 'M.C507_refresh' });
  },
);

test.serial('a token response without a refresh token (offline_access not granted) is refused', async (t) => {
  nock(MICROSOFT_ORIGINS.login)
    .post(TOKEN)
    .reply(200, { token_type: 'Bearer', expires_in: 3600, access_token: 'a' });
  await t.throwsAsync(
    provider.exchangeCode(outbound, {
      code: 'c',
      codeVerifier: 'v',
      redirectUri: 'https://sched.example/cb',
    }),
    { instanceOf: ProviderUnavailableError, message: /refresh token/ },
  );
});

test.serial('refresh on expiry stores the rotated refresh token', async (t) => {
  const refresh = nock(MICROSOFT_ORIGINS.login)
    .post(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: 'refresh-1',
      client_id: config.clientId,
      client_secret: config.clientSecret,
      scope: MICROSOFT_SCOPES.join(' '),
    })
    .reply(200, {
      token_type: 'Bearer',
      expires_in: 3600,
      access_token: 'fresh',
      refresh_token: 'refresh-2',
    });
  nock(MICROSOFT_ORIGINS.graph, { reqheaders: { authorization: 'Bearer fresh' } })
    .get('/v1.0/me/calendars')
    .query(true)
    .reply(200, calendars);
  const { calendar, store } = connector(oauthCredentials(-5));
  t.deepEqual(await calendar.listCalendars(), [
    { externalId: 'AAMkAGI2-default', name: 'Calendar', readOnly: false, primary: true, owned: true },
    { externalId: 'AAMkAGI2-birthdays', name: 'Birthdays', readOnly: true, primary: false, owned: true },
    // Shared by a colleague: listed, but not the account's own (not checked until chosen).
    {
      externalId: 'AAMkAGI2-shared',
      name: "Grace's calendar",
      readOnly: false,
      primary: false,
      owned: false,
    },
  ]);
  t.true(refresh.isDone());
  t.like(store.saved[0], { accessToken: 'fresh', refreshToken: 'refresh-2' });
});

test.serial('refresh answered invalid_grant (AADSTS70000): CredentialsRefusedError', async (t) => {
  nock(MICROSOFT_ORIGINS.login)
    .post(TOKEN)
    .reply(400, {
      error: 'invalid_grant',
      error_description: 'AADSTS70000: The provided value for the code parameter is not valid.',
      error_codes: [70000],
    });
  await t.throwsAsync(connector(oauthCredentials(-5)).calendar.account(), {
    instanceOf: CredentialsRefusedError,
  });
});

test.serial(
  'refresh answered interaction_required (a new MFA or consent policy): CredentialsRefusedError',
  async (t) => {
    nock(MICROSOFT_ORIGINS.login)
      .post(TOKEN)
      .reply(400, {
        error: 'interaction_required',
        error_description:
          "AADSTS50076: Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access '00000003-0000-0000-c000-000000000000'.",
        error_codes: [50076],
        suberror: 'basic_action',
      });
    await t.throwsAsync(connector(oauthCredentials(-5)).calendar.listCalendars(), {
      instanceOf: CredentialsRefusedError,
    });
  },
);

test.serial('a 401 gets one refresh and one retry; the account is the default calendar owner', async (t) => {
  nock(MICROSOFT_ORIGINS.graph, { reqheaders: { authorization: 'Bearer access-1' } })
    .get('/v1.0/me/calendars')
    .query(true)
    .reply(401, {
      error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired or is not yet valid.' },
    });
  nock(MICROSOFT_ORIGINS.login)
    .post(TOKEN)
    .reply(200, { access_token: 'again', refresh_token: 'refresh-3', expires_in: 3600 });
  nock(MICROSOFT_ORIGINS.graph, { reqheaders: { authorization: 'Bearer again' } })
    .get('/v1.0/me/calendars')
    .query(true)
    .reply(200, calendars);
  t.is(await connector().calendar.account(), 'ada@contoso.example');
});

test.serial('a 401 after the refresh: CredentialsRefusedError', async (t) => {
  nock(MICROSOFT_ORIGINS.graph)
    .get('/v1.0/me/calendars')
    .query(true)
    .times(2)
    .reply(401, { error: { code: 'InvalidAuthenticationToken' } });
  nock(MICROSOFT_ORIGINS.login)
    .post(TOKEN)
    .reply(200, { access_token: 'again', refresh_token: 'refresh-3', expires_in: 3600 });
  await t.throwsAsync(connector().calendar.listCalendars(), { instanceOf: CredentialsRefusedError });
});

test.serial(
  'busy times: calendarView of each chosen calendar in UTC, paged; free, working elsewhere and cancelled do not block; all-day blocks the host day',
  async (t) => {
    const view = `/v1.0/me/calendars/AAMkAGI2-default/calendarView`;
    nock(MICROSOFT_ORIGINS.graph, { reqheaders: { prefer: 'outlook.timezone="UTC"' } })
      .get(view)
      .query(
        (query) =>
          query.startDateTime === '2026-12-01T00:00:00.000Z' &&
          query.endDateTime === '2026-12-08T00:00:00.000Z',
      )
      .reply(200, {
        value: [
          {
            showAs: 'busy',
            isCancelled: false,
            isAllDay: false,
            start: { dateTime: '2026-12-01T09:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-01T10:00:00.0000000', timeZone: 'UTC' },
          },
          {
            showAs: 'tentative',
            isCancelled: false,
            isAllDay: false,
            start: { dateTime: '2026-12-01T11:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-01T11:30:00.0000000', timeZone: 'UTC' },
          },
          {
            showAs: 'free',
            isCancelled: false,
            isAllDay: false,
            start: { dateTime: '2026-12-01T12:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-01T13:00:00.0000000', timeZone: 'UTC' },
          },
          {
            showAs: 'busy',
            isCancelled: true,
            isAllDay: false,
            start: { dateTime: '2026-12-01T14:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-01T15:00:00.0000000', timeZone: 'UTC' },
          },
        ],
        '@odata.nextLink': `${MICROSOFT_ORIGINS.graph}${view}?startDateTime=2026-12-01T00:00:00.000Z&endDateTime=2026-12-08T00:00:00.000Z&$skip=4`,
      });
    nock(MICROSOFT_ORIGINS.graph)
      .get(view)
      .query((query) => query.$skip === '4')
      .reply(200, {
        value: [
          {
            showAs: 'oof',
            isCancelled: false,
            isAllDay: true,
            start: { dateTime: '2026-12-03T00:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-04T00:00:00.0000000', timeZone: 'UTC' },
          },
          {
            showAs: 'workingElsewhere',
            isCancelled: false,
            isAllDay: false,
            start: { dateTime: '2026-12-05T09:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-05T17:00:00.0000000', timeZone: 'UTC' },
          },
        ],
        // A next link to another origin is not followed.
        '@odata.nextLink': 'https://evil.example/v1.0/next',
      });
    const busy = await connector().calendar.busyTimes(
      ['AAMkAGI2-default'],
      { start: new Date('2026-12-01T00:00:00Z'), end: new Date('2026-12-08T00:00:00Z') },
      'Europe/Berlin',
    );
    t.deepEqual(
      busy.map((interval) => [interval.start.toISOString(), interval.end.toISOString()]),
      [
        ['2026-12-01T09:00:00.000Z', '2026-12-01T10:00:00.000Z'],
        ['2026-12-01T11:00:00.000Z', '2026-12-01T11:30:00.000Z'],
        // 3 December, midnight to midnight in Berlin.
        ['2026-12-02T23:00:00.000Z', '2026-12-03T23:00:00.000Z'],
      ],
    );
  },
);

test.serial('busy times: Graph throttling (429) or a 5xx is "unavailable"', async (t) => {
  nock(MICROSOFT_ORIGINS.graph)
    .get('/v1.0/me/calendars/c/calendarView')
    .query(true)
    .reply(429, { error: { code: 'TooManyRequests' } });
  await t.throwsAsync(
    connector().calendar.busyTimes(
      ['c'],
      { start: new Date('2026-12-01T00:00:00Z'), end: new Date('2026-12-02T00:00:00Z') },
      'UTC',
    ),
    { instanceOf: ProviderUnavailableError },
  );
});

test.serial(
  'busy times: a calendar deleted at Microsoft has nothing busy; the others still count',
  async (t) => {
    nock(MICROSOFT_ORIGINS.graph)
      .get('/v1.0/me/calendars/gone/calendarView')
      .query(true)
      .reply(404, {
        error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
      });
    nock(MICROSOFT_ORIGINS.graph)
      .get('/v1.0/me/calendars/here/calendarView')
      .query(true)
      .reply(200, {
        value: [
          {
            showAs: 'busy',
            isCancelled: false,
            isAllDay: false,
            start: { dateTime: '2026-12-01T10:00:00.0000000', timeZone: 'UTC' },
            end: { dateTime: '2026-12-01T11:00:00.0000000', timeZone: 'UTC' },
          },
        ],
      });
    const busy = await connector().calendar.busyTimes(
      ['gone', 'here'],
      { start: new Date('2026-12-01T00:00:00Z'), end: new Date('2026-12-02T00:00:00Z') },
      'UTC',
    );
    t.deepEqual(busy, [{ start: new Date('2026-12-01T10:00:00Z'), end: new Date('2026-12-01T11:00:00Z') }]);
  },
);

const draft = {
  uid: 'booking-uid-2@sched.example',
  title: '30 min meeting between Ada Lovelace and Bob Booker',
  description: 'Cancel: https://sched.example/booking/booking-uid-2/cancel',
  start: new Date('2026-12-03T10:00:00Z'),
  end: new Date('2026-12-03T10:30:00Z'),
  timeZone: 'Europe/Berlin',
  organizer: { email: 'ada@contoso.example', name: 'Ada Lovelace' },
  attendees: [{ email: 'bob@example.net', name: 'Bob Booker' }],
};

const eventFields = {
  subject: draft.title,
  body: { contentType: 'text', content: draft.description },
  start: { dateTime: '2026-12-03T10:00:00.000', timeZone: 'UTC' },
  end: { dateTime: '2026-12-03T10:30:00.000', timeZone: 'UTC' },
  attendees: [{ emailAddress: { address: 'bob@example.net', name: 'Bob Booker' }, type: 'required' }],
};

test.serial(
  'events: create in the chosen calendar (attendee invited, transactionId), patch, delete',
  async (t) => {
    const create = nock(MICROSOFT_ORIGINS.graph)
      .post('/v1.0/me/calendars/AAMkAGI2-default/events', { ...eventFields, transactionId: draft.uid })
      .reply(201, { '@odata.etag': 'W/"1"', id: 'AAMkAGI2-event', subject: draft.title });
    const patch = nock(MICROSOFT_ORIGINS.graph)
      .patch('/v1.0/me/events/AAMkAGI2-event', {
        ...eventFields,
        start: { dateTime: '2026-12-04T08:00:00.000', timeZone: 'UTC' },
        end: { dateTime: '2026-12-04T08:30:00.000', timeZone: 'UTC' },
      })
      .reply(200, { id: 'AAMkAGI2-event' });
    const remove = nock(MICROSOFT_ORIGINS.graph).delete('/v1.0/me/events/AAMkAGI2-event').reply(204);
    nock(MICROSOFT_ORIGINS.graph)
      .delete('/v1.0/me/events/gone')
      .reply(404, { error: { code: 'ErrorItemNotFound' } });
    const { calendar } = connector();
    t.deepEqual(await calendar.createEvent('AAMkAGI2-default', draft), { externalId: 'AAMkAGI2-event' });
    await calendar.updateEvent('AAMkAGI2-default', 'AAMkAGI2-event', {
      ...draft,
      start: new Date('2026-12-04T08:00:00Z'),
      end: new Date('2026-12-04T08:30:00Z'),
    });
    await calendar.deleteEvent('AAMkAGI2-default', 'AAMkAGI2-event');
    await t.notThrowsAsync(calendar.deleteEvent('AAMkAGI2-default', 'gone'));
    t.true(create.isDone() && patch.isDone() && remove.isDone());
    t.is(calendar.revoke, undefined, 'Microsoft offers no revocation of one grant');
  },
);
