// OAuth-client management through the API, for the clients tests (on the kit's world).
import type { TestFn } from 'ava';
import type { TestUser } from '../support/factories.ts';
import type { Json } from '../support/http.ts';
import { setUpWorld, type World } from '../support/world.ts';

export type ClientsWorld = World;

/** The world for the whole file; `owner` (its ordinary user) owns the clients a test creates. */
export function setUpClientsWorld<Context>(test: TestFn<Context>): { world: ClientsWorld; owner: TestUser } {
  const world = setUpWorld(test);
  return { world, owner: world.user };
}

export const validClient = (overrides: Record<string, unknown> = {}) => ({
  name: 'Calendar Sync',
  redirectUris: ['https://app.example.com/callback'],
  scopes: ['BOOKING_READ', 'PROFILE_READ'],
  logo: 'https://app.example.com/logo.png',
  websiteUrl: 'https://app.example.com',
  purpose: 'Syncs bookings into a calendar',
  ...overrides,
});

/** Creates a client through the API as `owner`; returns the response body's data (with the plain secret). */
export async function createClient(
  world: ClientsWorld,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
) {
  const response = await world.call('POST', '/v2/oauth-clients', {
    token: owner.apiKey,
    body: validClient(overrides),
  });
  if (response.status !== 201)
    throw new Error(`create client: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Json;
}

export async function approve(world: ClientsWorld, clientId: string) {
  const response = await world.call('POST', `/v2/admin/oauth-clients/${clientId}/approve`, {
    token: world.admin.apiKey,
  });
  if (response.status !== 200)
    throw new Error(`approve: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Json;
}

/** An APPROVED client created through the API. */
export async function approvedClient(
  world: ClientsWorld,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
) {
  const created = await createClient(world, owner, overrides);
  await approve(world, created.id);
  return created;
}
