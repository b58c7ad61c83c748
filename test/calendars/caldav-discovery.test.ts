// CalDAV accounts against servers laid out as they are in the wild (RFC 6764): a server whose DAV
// tree is not at its root (Nextcloud: /remote.php/dav/) is found through the redirect of
// /.well-known/caldav, an address that answers but is no CalDAV server is a 400 saying so (not a
// 500) with nothing saved, the same user name on two servers is two accounts, and a calendar
// deleted at the server leaves the others of the account counting.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CredentialsBox } from '@sched/calendars/credentials-box';
import { saveCalendarConnection } from '@sched/db/queries/calendar-connections';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { setUpRadicale, startRadicale, vevent } from '../support/radicale.ts';
import { setUpTestSystem } from '../support/system.ts';

const alex = { username: 'alex', password: 'correct horse battery staple' };
const dana = { username: 'dana', password: 'dana horse battery staple' };
const radicale = setUpRadicale(test, [alex, dana]);
const system = setUpTestSystem(test, { OUTBOUND_PRIVATE_NETWORKS: 'allow' });
const call = apiClient(() => system.url);

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

test.serial.before(async () => {
  await radicale.makeCalendar(alex, 'work', 'Work');
});

test.serial('a server whose DAV tree is below its root is found through /.well-known/caldav', async (t) => {
  // radicale behind a front that serves it under /dav/ only, as Nextcloud does under /remote.php/dav/.
  const front = await serve((req, res) => {
    if (req.url?.startsWith('/.well-known/caldav')) return res.writeHead(301, { location: '/dav/' }).end();
    if (!req.url?.startsWith('/dav/')) return res.writeHead(404).end('Not Found');
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: radicale.port,
        path: req.url.slice('/dav'.length),
        method: req.method,
        headers: { ...req.headers, 'x-script-name': '/dav' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  t.teardown(() => front.server.close());
  const host = await insertUser(system.stores.db.knex);
  const response = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: front.url, username: alex.username, password: alex.password },
  });
  t.is(response.status, 201, JSON.stringify(response.body));
  t.deepEqual(
    response.body.data.calendars.map((calendar: { name: string }) => calendar.name),
    ['Work'],
  );
});

test.serial('an address that answers but is no CalDAV server: 400 saying so, nothing saved', async (t) => {
  const web = await serve((req, res) => {
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome</h1>');
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
  });
  t.teardown(() => web.server.close());
  const host = await insertUser(system.stores.db.knex);
  const response = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: web.url, username: alex.username, password: alex.password },
  });
  t.is(response.status, 400, JSON.stringify(response.body));
  t.is(response.body.error.message, 'No CalDAV calendars were found at this server URL');
  t.deepEqual((await call('GET', '/v2/calendars', { token: host.apiKey })).body.data, []);
});

test.serial('the same user name on another server is another connection; the first one stays', async (t) => {
  const elsewhere = { username: alex.username, password: 'another password' };
  const second = await startRadicale([elsewhere]);
  t.teardown(() => second.close());
  await second.makeCalendar(elsewhere, 'home', 'Home');
  const host = await insertUser(system.stores.db.knex);
  const connect = (serverUrl: string, password: string) =>
    call('POST', '/v2/calendars/caldav', {
      token: host.apiKey,
      body: { serverUrl, username: alex.username, password },
    });
  const first = await connect(radicale.url, alex.password);
  t.is(first.status, 201);
  t.is((await connect(second.url, elsewhere.password)).status, 201);
  // The first server again (another path on it): the same account, refreshed, not a third one.
  t.is((await connect(`${radicale.url}/alex/`, alex.password)).status, 201);
  const listed = (await call('GET', '/v2/calendars', { token: host.apiKey })).body.data as Array<{
    id: number;
    account: string;
    calendars: Array<{ name: string }>;
  }>;
  t.deepEqual(
    listed.map((connection) => [connection.account, connection.calendars.map((c) => c.name)]),
    [
      ['alex', ['Work']],
      ['alex', ['Home']],
    ],
  );
  t.is(listed[0]!.id, first.body.data.id);
});

test.serial('a connection saved before servers were told apart is refreshed, not doubled', async (t) => {
  const knex = system.stores.db.knex;
  const host = await insertUser(knex);
  const box = new CredentialsBox(system.config.encryptionKey);
  const old = await saveCalendarConnection(knex, {
    userId: host.id,
    provider: 'caldav',
    account: alex.username,
    credentialsSealed: box.seal({
      serverUrl: radicale.url,
      username: alex.username,
      password: 'old password',
    }),
    calendars: [{ externalId: `${radicale.url}/alex/work/`, name: 'Work', readOnly: false, primary: true }],
  });
  await knex('calendar_connections').where({ id: old.id }).update({ status: 'needs_reauth' });
  const reconnected = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: radicale.url, username: alex.username, password: alex.password },
  });
  t.is(reconnected.status, 201);
  const listed = (await call('GET', '/v2/calendars', { token: host.apiKey })).body.data;
  t.is(listed.length, 1);
  t.like(listed[0], { id: old.id, status: 'active' });
});

test.serial(
  'a server that never answers is given up after one time limit, not one per discovery URL',
  async (t) => {
    const silent = await serve(() => {
      // Takes the request and never answers.
    });
    let requests = 0;
    silent.server.on('request', () => {
      requests += 1;
    });
    t.teardown(() => {
      silent.server.closeAllConnections();
      silent.server.close();
    });
    const host = await insertUser(system.stores.db.knex);
    const response = await call('POST', '/v2/calendars/caldav', {
      token: host.apiKey,
      body: { serverUrl: silent.url, username: alex.username, password: alex.password },
    });
    t.is(response.status, 400);
    t.regex(response.body.error.message, /could not be reached/);
    t.is(requests, 1);
  },
);

test.serial('a calendar deleted at the server: the other calendars of the account still count', async (t) => {
  const work = await radicale.makeCalendar(dana, 'work', 'Work');
  const old = await radicale.makeCalendar(dana, 'old', 'Old project');
  await radicale.putEvent(
    dana,
    work,
    'meeting',
    vevent('meeting', ['DTSTART:20310303T100000Z', 'DTEND:20310303T110000Z']),
  );
  const host = await insertUser(system.stores.db.knex);
  const connected = await call('POST', '/v2/calendars/caldav', {
    token: host.apiKey,
    body: { serverUrl: radicale.url, username: dana.username, password: dana.password },
  });
  t.is(connected.status, 201);
  t.is((await radicale.request(dana, old, { method: 'DELETE' })).status, 200);
  const busy = await call('GET', '/v2/calendars/busy-times?start=2031-03-03&end=2031-03-03&timeZone=UTC', {
    token: host.apiKey,
  });
  t.deepEqual(
    busy.body.data.map((interval: { start: string; end: string }) => [interval.start, interval.end]),
    [['2031-03-03T10:00:00.000Z', '2031-03-03T11:00:00.000Z']],
  );
  t.is((await call('GET', '/v2/calendars', { token: host.apiKey })).body.data[0].status, 'active');
});
