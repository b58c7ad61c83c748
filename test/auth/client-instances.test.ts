import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import { addClientSecret, setReviewStatus, updateOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import Provider from 'oidc-provider';
import { serveClientsFromDirectory } from '../../services/auth/src/provider/client-instances.ts';
import { ClientDirectory } from '../../services/auth/src/provider/clients.ts';
import { insertClient, insertUser } from '../support/factories.ts';
import { setUpTestSystem } from '../support/system.ts';

// oidc-provider's clients come from our directory (provider/client-instances.ts): one built client
// per client version, whatever the number of clients, and a change seen by every process at once.

const system = setUpTestSystem(test);

function row(id: string, redirectUri: string): OAuthClientWithSecrets {
  const now = new Date();
  return {
    id,
    ownerUserId: 1,
    organizationId: null,
    name: `App ${id}`,
    logo: null,
    websiteUrl: null,
    purpose: null,
    redirectUris: [redirectUri],
    scopes: ['PROFILE_READ'],
    clientType: 'confidential',
    registration: 'settings',
    reviewStatus: 'APPROVED',
    rejectionReason: null,
    reviewedAt: null,
    reviewedByUserId: null,
    isLegacy: false,
    areEmailsEnabled: false,
    areDefaultEventTypesEnabled: false,
    areCalendarEventsEnabled: false,
    bookingRedirectUri: null,
    bookingCancelRedirectUri: null,
    bookingRescheduleRedirectUri: null,
    createdAt: now,
    updatedAt: now,
    activeSecretHashes: ['00'.repeat(32)],
  };
}

test('300 clients: each is built once and found again as the same object; a new version is rebuilt', async (t) => {
  const rows = new Map<string, OAuthClientWithSecrets>();
  for (let i = 0; i < 300; i++)
    rows.set(`client-${i}`, row(`client-${i}`, `https://app-${i}.example.com/cb`));
  const provider = new Provider('http://127.0.0.1', {});
  serveClientsFromDirectory(provider, async (_state, id) => rows.get(id) ?? null);

  const first = await Promise.all([...rows.keys()].map((id) => provider.Client.find(id)));
  const again = await Promise.all([...rows.keys()].map((id) => provider.Client.find(id)));
  t.true(
    first.every((client, i) => client !== undefined && client === again[i]),
    'no client rebuilt (the library keeps only 100)',
  );
  t.deepEqual(first[7]?.redirectUris, ['https://app-7.example.com/cb']);

  // The directory hands out a new row when the client's version changes.
  rows.set('client-7', row('client-7', 'https://moved.example.com/cb'));
  const changed = await provider.Client.find('client-7');
  t.not(changed, first[7]);
  t.deepEqual(changed?.redirectUris, ['https://moved.example.com/cb']);
  t.is(await provider.Client.find('client-8'), first[8]);

  t.is(await provider.Client.find('no-such-client'), undefined);
  t.is(await provider.Client.find(''), undefined);
});

test('two processes: an unchanged client is served from each cache; a change is seen by both at once', async (t) => {
  const { knex } = system.stores.db;
  const store = system.stores.tokenStore;
  const owner = await insertUser(knex);
  const app = await insertClient(knex, { ownerUserId: owner.id, redirectUris: ['https://a.example.com/cb'] });
  const id = app.client.id;
  const one = new ClientDirectory(knex, store);
  const two = new ClientDirectory(knex, store);

  const before = [await one.current(id), await two.current(id)] as const;
  t.is(await one.current(id), before[0], 'unchanged: the cached row, not a new read');
  t.is(await two.current(id), before[1]);

  await updateOAuthClient(knex, store, id, { redirectUris: ['https://b.example.com/cb'] });
  t.deepEqual((await one.current(id))?.redirectUris, ['https://b.example.com/cb']);
  t.deepEqual((await two.current(id))?.redirectUris, ['https://b.example.com/cb']);

  await addClientSecret(knex, store, id);
  t.is((await one.current(id))?.activeSecretHashes.length, 2, 'a new secret, at once');
  t.is((await two.current(id))?.activeSecretHashes.length, 2);

  await setReviewStatus(knex, store, id, 'REJECTED', {
    rejectionReason: 'not real',
    reviewedByUserId: owner.id,
  });
  t.is((await one.current(id))?.reviewStatus, 'REJECTED', 'a review decision, at once');
  t.is((await two.current(id))?.reviewStatus, 'REJECTED');
});
