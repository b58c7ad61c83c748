import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@sched/kit/config';
import {
  createOutboundFetch,
  OutboundLimitError,
  type OutboundOptions,
  OutboundRefusedError,
} from '@sched/kit/outbound';
import { isSpecialUseAddress } from '@sched/kit/outbound-addresses';
import test from 'ava';

// The outbound-fetch module: the address rule on the connected address, at every redirect, and
// the size and time caps. Every test server counts the connections it gets, so "refused" means
// nothing reached it.

interface CountingServer {
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}

async function listen(host: string, handler: Parameters<typeof createServer>[1]): Promise<CountingServer> {
  const server: Server = createServer(handler);
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// 127.0.0.2 stands in for a public address: every other address is refused as the real rule would.
const publicStandIn = (address: string) => address !== '127.0.0.2';
const strict = (extra: Partial<OutboundOptions> = {}) =>
  createOutboundFetch({
    allowPrivateNetworks: false,
    requireHttps: false,
    refusesAddress: publicStandIn,
    ...extra,
  });

test('the special-use ranges are refused and public addresses are not', (t) => {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2001:db8::1',
    '[::1]',
    'not-an-address',
  ]) {
    t.true(isSpecialUseAddress(address), address);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    t.false(isSpecialUseAddress(address), address);
  }
});

test('loopback, private, link-local and IPv6 special-use literals are refused before any connection', async (t) => {
  const target = await listen('127.0.0.1', (_req, res) => res.end('secret'));
  t.teardown(target.close);
  const fetchOut = createOutboundFetch({ allowPrivateNetworks: false, requireHttps: false });
  const port = new URL(target.url).port;
  for (const url of [
    target.url,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://[fe80::1]/',
  ]) {
    const error = await t.throwsAsync(fetchOut(url), { instanceOf: OutboundRefusedError }, url);
    t.is(error?.reason, 'address');
  }
  t.is(target.connections(), 0);
});

test('a DNS name that resolves to loopback is refused at connect time', async (t) => {
  const target = await listen('127.0.0.1', (_req, res) => res.end('secret'));
  t.teardown(target.close);
  const fetchOut = createOutboundFetch({ allowPrivateNetworks: false, requireHttps: false });
  const error = await t.throwsAsync(fetchOut(`http://localhost:${new URL(target.url).port}/`), {
    instanceOf: OutboundRefusedError,
  });
  t.is(error?.reason, 'address');
  t.is(target.connections(), 0);
});

test('a redirect to a refused address is not followed, and the target gets nothing', async (t) => {
  const target = await listen('127.0.0.1', (_req, res) => res.end('secret'));
  t.teardown(target.close);
  const front = await listen('127.0.0.2', (_req, res) => {
    res.writeHead(302, { location: `${target.url}/admin` }).end();
  });
  t.teardown(front.close);
  const error = await t.throwsAsync(strict()(front.url), { instanceOf: OutboundRefusedError });
  t.is(error?.reason, 'address');
  t.is(front.connections(), 1);
  t.is(target.connections(), 0);

  const viaName = await listen('127.0.0.2', (_req, res) => {
    res.writeHead(307, { location: `http://localhost:${new URL(target.url).port}/` }).end();
  });
  t.teardown(viaName.close);
  await t.throwsAsync(strict()(viaName.url), { instanceOf: OutboundRefusedError });
  t.is(target.connections(), 0);
});

test('redirects are followed up to the cap, and not at all when the cap is 0', async (t) => {
  let hops = 0;
  const server = await listen('127.0.0.2', (req, res) => {
    hops += 1;
    const n = Number(req.url!.slice(1) || 0);
    if (n < 5) res.writeHead(302, { location: `/${n + 1}` }).end();
    else res.end('arrived');
  });
  t.teardown(server.close);
  const error = await t.throwsAsync(strict({ maxRedirects: 3 })(`${server.url}/0`), {
    instanceOf: OutboundRefusedError,
  });
  t.is(error?.reason, 'redirect');
  t.is(await (await strict({ maxRedirects: 3 })(`${server.url}/2`)).text(), 'arrived');
  hops = 0;
  await t.throwsAsync(strict({ maxRedirects: 0 })(`${server.url}/4`), { instanceOf: OutboundRefusedError });
  t.is(hops, 1);
});

test('Authorization is not carried to another origin on a redirect', async (t) => {
  const seen: (string | undefined)[] = [];
  const other = await listen('127.0.0.2', (req, res) => {
    seen.push(req.headers.authorization);
    res.end('ok');
  });
  t.teardown(other.close);
  const front = await listen('127.0.0.2', (_req, res) => res.writeHead(302, { location: other.url }).end());
  t.teardown(front.close);
  await strict()(front.url, { headers: { authorization: 'Basic c2VjcmV0' } });
  t.deepEqual(seen, [undefined]);
});

test('http is refused unless required otherwise or private networks are allowed', async (t) => {
  const server = await listen('127.0.0.1', (_req, res) => res.end('hello'));
  t.teardown(server.close);
  const https = createOutboundFetch({ allowPrivateNetworks: false });
  const error = await t.throwsAsync(https(server.url), { instanceOf: OutboundRefusedError });
  t.is(error?.reason, 'scheme');
  await t.throwsAsync(https('file:///etc/passwd'), { instanceOf: OutboundRefusedError });
  t.is(server.connections(), 0);

  const allowed = createOutboundFetch({ allowPrivateNetworks: true });
  const response = await allowed(server.url, { method: 'POST', body: 'x' });
  t.is(response.status, 200);
  t.is(await response.text(), 'hello');
});

test('answers larger than the cap and slower than the time limit fail with a limit error', async (t) => {
  const server = await listen('127.0.0.2', (req, res) => {
    if (req.url === '/big') {
      res.write('x'.repeat(4000));
      res.end('x'.repeat(4000));
    } else if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '10000' }).end('x'.repeat(10000));
    } else {
      res.write('partial');
      // never ends
    }
  });
  t.teardown(server.close);
  const capped = strict({ maxBytes: 5000, timeoutMs: 300 });
  const big = await t.throwsAsync(capped(`${server.url}/big`), { instanceOf: OutboundLimitError });
  t.is(big?.limit, 'size');
  await t.throwsAsync(capped(`${server.url}/declared`), { instanceOf: OutboundLimitError });
  const slow = await t.throwsAsync(capped(`${server.url}/slow`), { instanceOf: OutboundLimitError });
  t.is(slow?.limit, 'time');
});

test('OUTBOUND_PRIVATE_NETWORKS is allow or deny, deny by default', (t) => {
  t.false(loadConfig({}).outboundPrivateNetworks);
  t.true(loadConfig({ OUTBOUND_PRIVATE_NETWORKS: 'allow' }).outboundPrivateNetworks);
  t.throws(() => loadConfig({ OUTBOUND_PRIVATE_NETWORKS: 'yes' }), {
    message: 'Invalid configuration: OUTBOUND_PRIVATE_NETWORKS must be allow or deny',
  });
});

test('redirect: manual hands the redirect back unfollowed; redirect: error refuses it', async (t) => {
  let hops = 0;
  const server = await listen('127.0.0.2', (req, res) => {
    hops += 1;
    if (req.url === '/.well-known/caldav') res.writeHead(301, { location: '/dav/' }).end();
    else res.end('arrived');
  });
  t.teardown(server.close);
  const manual = await strict()(`${server.url}/.well-known/caldav`, { redirect: 'manual' });
  t.is(manual.status, 301);
  t.is(manual.headers.get('location'), '/dav/');
  t.is(hops, 1);
  const error = await t.throwsAsync(strict()(`${server.url}/.well-known/caldav`, { redirect: 'error' }), {
    instanceOf: OutboundRefusedError,
  });
  t.is(error?.reason, 'redirect');
  t.is(hops, 2);
  t.is(await (await strict()(`${server.url}/.well-known/caldav`)).text(), 'arrived');
});
