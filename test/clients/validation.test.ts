import test from 'ava';
import { createClient, setUpClientsWorld, validClient } from './helpers.ts';

// Validation of client inputs: 400 with details naming each failing field, never 500.

const { world, owner } = setUpClientsWorld(test);

const create = (body: unknown) => world.call('POST', '/v2/oauth-clients', { token: owner.apiKey, body });

const cases: Array<[string, Record<string, unknown>, string]> = [
  ['no scopes', { scopes: [] }, 'body.scopes'],
  ['unknown scope', { scopes: ['BOOKING_READ', 'ADMIN_EVERYTHING'] }, 'body.scopes.1'],
  ['legacy scope at creation', { scopes: ['READ_BOOKING'] }, 'body.scopes.0'],
  ['duplicate scope', { scopes: ['BOOKING_READ', 'BOOKING_READ'] }, 'body.scopes.1'],
  ['no redirect URI', { redirectUris: [] }, 'body.redirectUris'],
  [
    'eleven redirect URIs',
    { redirectUris: Array.from({ length: 11 }, (_, i) => `https://a.example.com/cb${i}`) },
    'body.redirectUris',
  ],
  ['relative redirect URI', { redirectUris: ['/callback'] }, 'body.redirectUris.0'],
  ['http redirect URI', { redirectUris: ['http://app.example.com/cb'] }, 'body.redirectUris.0'],
  ['custom scheme', { redirectUris: ['myapp://callback'] }, 'body.redirectUris.0'],
  ['fragment', { redirectUris: ['https://app.example.com/cb#x'] }, 'body.redirectUris.0'],
  [
    'duplicate redirect URIs',
    { redirectUris: ['https://app.example.com/cb', 'https://APP.example.com/cb'] },
    'body.redirectUris.1',
  ],
  ['empty name', { name: '  ' }, 'body.name'],
  ['long name', { name: 'x'.repeat(101) }, 'body.name'],
  ['http logo', { logo: 'http://app.example.com/logo.png' }, 'body.logo'],
  ['not a URL website', { websiteUrl: 'example.com' }, 'body.websiteUrl'],
  ['long website', { websiteUrl: `https://example.com/${'x'.repeat(2048)}` }, 'body.websiteUrl'],
  ['long purpose', { purpose: 'x'.repeat(1001) }, 'body.purpose'],
  ['bad client type', { clientType: 'secret' }, 'body.clientType'],
  ['unknown field', { color: 'red' }, 'body.color'],
  ['scopes not an array', { scopes: 'BOOKING_READ' }, 'body.scopes'],
  ['organization id not a number', { organizationId: 'one' }, 'body.organizationId'],
];

for (const [what, override, field] of cases) {
  test(`creation refuses ${what} with 400 naming ${field}`, async (t) => {
    const response = await create(validClient(override));
    t.is(response.status, 400);
    t.is(response.body.error.code, 'BadRequest');
    t.true(
      response.body.error.details.some((d: { field: string }) => d.field === field),
      JSON.stringify(response.body.error.details),
    );
  });
}

test('loopback redirect URIs may use http; ten are allowed', async (t) => {
  const created = await createClient(world, owner, {
    redirectUris: [
      'http://localhost:8080/cb',
      'http://127.0.0.1/cb',
      'http://[::1]:3000/cb',
      ...Array.from({ length: 7 }, (_, i) => `https://a.example.com/cb${i}`),
    ],
  });
  t.is(created.redirectUris.length, 10);
});

test('updates are validated the same way and never 500', async (t) => {
  const client = await createClient(world, owner);
  const bodies: Array<[unknown, string]> = [
    [{ redirectUris: ['https://a.example.com/#frag'] }, 'body.redirectUris.0'],
    [{ scopes: ['NOPE'] }, 'body.scopes.0'],
    [{ logo: 'ftp://a.example.com/x.png' }, 'body.logo'],
    [{ name: '' }, 'body.name'],
    [{ bookingRedirectUri: 'http://example.com/booked' }, 'body.bookingRedirectUri'],
    [{ clientType: 'public' }, 'body.clientType'],
    [{ areEmailsEnabled: 'yes' }, 'body.areEmailsEnabled'],
  ];
  for (const [body, field] of bodies) {
    const response = await world.call('PATCH', `/v2/oauth-clients/${client.id}`, {
      token: owner.apiKey,
      body,
    });
    t.is(response.status, 400, JSON.stringify(body));
    t.true(
      response.body.error.details.some((d: { field: string }) => d.field === field),
      JSON.stringify(body),
    );
  }
  const garbage = await world.call('PATCH', `/v2/oauth-clients/${client.id}`, {
    token: owner.apiKey,
    body: '[1,2,3]',
  });
  t.is(garbage.status, 400);
  const weirdId = await world.call('GET', `/v2/oauth-clients/${'%E2%9C%93'.repeat(10)}`, {
    token: owner.apiKey,
  });
  t.is(weirdId.status, 404);
  const longId = await world.call('GET', `/v2/oauth-clients/${'a'.repeat(300)}`, { token: owner.apiKey });
  t.is(longId.status, 400);
  const badSecretId = await world.call('DELETE', `/v2/oauth-clients/${client.id}/secrets/abc`, {
    token: owner.apiKey,
  });
  t.is(badSecretId.status, 400);
});

test('without an API key: 401', async (t) => {
  t.is((await world.call('GET', '/v2/oauth-clients')).status, 401);
  t.is((await world.call('POST', '/v2/oauth-clients', { body: validClient() })).status, 401);
});
