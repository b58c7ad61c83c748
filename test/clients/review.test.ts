import { listAuditEntries } from '@sched/db/queries/audit-log';
import test from 'ava';
import { mimeTypes, waitForMail } from '../support/mail.ts';
import { approve, approvedClient, createClient, setUpClientsWorld } from './helpers.ts';
import { insertClient } from '../support/factories.ts';

// Every row of the review state table (docs/oauth-clients.md "Review state machine"), through the
// API, plus what this project decided for rejected clients (docs/oauth-clients.md).

const { world, owner } = setUpClientsWorld(test);

const patch = (clientId: string, body: unknown, token = owner.apiKey) =>
  world.call('PATCH', `/v2/oauth-clients/${clientId}`, { token, body });

const audit = (clientId: string) => listAuditEntries(world.system.stores.db.knex, 'oauth_client', clientId);

test('(none) -> PENDING: creation with at least one scope; the secret is shown once', async (t) => {
  const created = await createClient(world, owner);
  t.is(created.reviewStatus, 'PENDING');
  t.is(created.rejectionReason, null);
  t.is(created.clientType, 'confidential');
  t.deepEqual(created.permissions, ['BOOKING_READ', 'PROFILE_READ']);
  t.deepEqual(created.scopes, created.permissions);
  t.regex(created.secret, /^[A-Za-z0-9_-]{43}$/);
  const got = await world.call('GET', `/v2/oauth-clients/${created.id}`, { token: owner.apiKey });
  t.is(got.status, 200);
  t.is(got.body.data.secret, `****${created.secret.slice(-4)}`);
  t.deepEqual(
    (await audit(created.id)).map((e) => e.action),
    ['oauth_client.created'],
  );
  const none = await world.call('POST', '/v2/oauth-clients', {
    token: owner.apiKey,
    body: { name: 'No scopes', redirectUris: ['https://a.example.com/cb'], scopes: [] },
  });
  t.is(none.status, 400);
  t.is(none.body.error.details[0].field, 'body.scopes');
});

test('PENDING -> APPROVED by an administrator: e-mail to the owner with text and HTML parts', async (t) => {
  const created = await createClient(world, owner, { name: 'Approve Me' });
  const approved = await approve(world, created.id);
  t.is(approved.reviewStatus, 'APPROVED');
  const mail = await waitForMail(world, owner.email, 'Your OAuth client "Approve Me" was approved');
  const types = mimeTypes(mail.raw);
  t.true(types.includes('multipart/alternative'));
  t.true(types.includes('text/plain'));
  t.true(types.includes('text/html'));
  t.true(mail.body.includes('was approved by a service administrator'));
  const entries = await audit(created.id);
  t.is(entries.at(-1)!.action, 'oauth_client.approved');
  t.is(entries.at(-1)!.actorUserId, world.admin.id);
  // Only a pending client is reviewed.
  const again = await world.call('POST', `/v2/admin/oauth-clients/${created.id}/approve`, {
    token: world.admin.apiKey,
  });
  t.is(again.status, 409);
});

test('PENDING -> REJECTED with a reason: e-mail to the owner carrying the reason', async (t) => {
  const created = await createClient(world, owner, { name: 'Reject Me' });
  const noReason = await world.call('POST', `/v2/admin/oauth-clients/${created.id}/reject`, {
    token: world.admin.apiKey,
    body: { reason: '   ' },
  });
  t.is(noReason.status, 400);
  t.is(noReason.body.error.details[0].field, 'body.reason');
  const missing = await world.call('POST', `/v2/admin/oauth-clients/${created.id}/reject`, {
    token: world.admin.apiKey,
    body: {},
  });
  t.is(missing.status, 400);
  const rejected = await world.call('POST', `/v2/admin/oauth-clients/${created.id}/reject`, {
    token: world.admin.apiKey,
    body: { reason: 'Website does not describe the app' },
  });
  t.is(rejected.status, 200);
  t.is(rejected.body.data.reviewStatus, 'REJECTED');
  t.is(rejected.body.data.rejectionReason, 'Website does not describe the app');
  const mail = await waitForMail(world, owner.email, 'Your OAuth client "Reject Me" was rejected');
  const types = mimeTypes(mail.raw);
  t.true(types.includes('text/plain') && types.includes('text/html'));
  t.true(mail.body.includes('Reason: Website does not describe the app'));
  t.true(mail.body.includes('<strong>Reason:</strong> Website does not describe the app'));
  const entry = (await audit(created.id)).at(-1)!;
  t.is(entry.action, 'oauth_client.rejected');
  t.is(entry.details['reason'], 'Website does not describe the app');
});

test('only service administrators review; the queue lists by status', async (t) => {
  const created = await createClient(world, owner, { name: 'Queued' });
  const byOwner = await world.call('POST', `/v2/admin/oauth-clients/${created.id}/approve`, {
    token: owner.apiKey,
  });
  t.is(byOwner.status, 403);
  const queue = await world.call('GET', '/v2/admin/oauth-clients?reviewStatus=PENDING', {
    token: world.admin.apiKey,
  });
  t.is(queue.status, 200);
  t.true(queue.body.data.some((c: { id: string }) => c.id === created.id));
  t.true(queue.body.data.every((c: { reviewStatus: string }) => c.reviewStatus === 'PENDING'));
  const bad = await world.call('GET', '/v2/admin/oauth-clients?reviewStatus=MAYBE', {
    token: world.admin.apiKey,
  });
  t.is(bad.status, 400);
  const notAdmin = await world.call('GET', '/v2/admin/oauth-clients', { token: owner.apiKey });
  t.is(notAdmin.status, 403);
});

const reviewedFieldChanges: Array<[string, Record<string, unknown>]> = [
  ['name', { name: 'Renamed' }],
  ['logo', { logo: 'https://cdn.example.com/new-logo.png' }],
  ['website URL', { websiteUrl: 'https://www.example.org' }],
  ['redirect URI', { redirectUris: ['https://app.example.com/callback', 'https://app.example.com/other'] }],
  ['purpose description', { purpose: 'Something else entirely' }],
];

for (const [what, body] of reviewedFieldChanges) {
  test(`APPROVED -> PENDING when the ${what} changes (re-review, e-mail, audit)`, async (t) => {
    const created = await approvedClient(world, owner, { name: `Field ${what}` });
    const response = await patch(created.id, body);
    t.is(response.status, 200);
    t.is(response.body.data.reviewStatus, 'PENDING');
    const entries = await audit(created.id);
    const moved = entries.find((e) => e.action === 'oauth_client.review_status_changed');
    t.truthy(moved);
    t.like(moved!.details, { from: 'APPROVED', to: 'PENDING' });
    const name = (body['name'] as string | undefined) ?? `Field ${what}`;
    const mail = await waitForMail(world, owner.email, `Your OAuth client "${name}" is back in review`);
    t.true(mimeTypes(mail.raw).includes('text/html'));
  });
}

test('APPROVED stays APPROVED when only flags or booking redirects change', async (t) => {
  const created = await approvedClient(world, owner);
  const response = await patch(created.id, {
    areEmailsEnabled: true,
    bookingRedirectUri: 'https://app.example.com/booked',
  });
  t.is(response.status, 200);
  t.is(response.body.data.reviewStatus, 'APPROVED');
  t.is(response.body.data.areEmailsEnabled, true);
  t.is(response.body.data.bookingRedirectUri, 'https://app.example.com/booked');
  // The same values again: no change at all.
  const same = await patch(created.id, { name: created.name, scopes: created.scopes });
  t.is(same.body.data.reviewStatus, 'APPROVED');
});

const scopeChanges: Array<[string, string[], string[]]> = [
  ['a scope the client did not have is added', ['BOOKING_READ'], ['BOOKING_READ', 'EVENT_TYPE_READ']],
  ['a _READ is added while its _WRITE is granted', ['BOOKING_WRITE'], ['BOOKING_WRITE', 'BOOKING_READ']],
  ['a scope is removed', ['BOOKING_READ', 'PROFILE_READ'], ['BOOKING_READ']],
];

for (const [what, before, after] of scopeChanges) {
  test(`APPROVED -> PENDING when ${what}`, async (t) => {
    const created = await approvedClient(world, owner, { scopes: before });
    const response = await patch(created.id, { scopes: after });
    t.is(response.status, 200);
    t.is(response.body.data.reviewStatus, 'PENDING');
    t.deepEqual(response.body.data.permissions, after);
    const updated = (await audit(created.id)).find((e) => e.action === 'oauth_client.updated');
    t.like(updated!.details, { statusFrom: 'APPROVED', statusTo: 'PENDING' });
  });
}

test('approved legacy client saving only user-level scopes stays APPROVED and stops being legacy', async (t) => {
  const knex = world.system.stores.db.knex;
  const legacy = await insertClient(knex, { ownerUserId: owner.id, scopes: [] });
  const before = await world.call('GET', `/v2/oauth-clients/${legacy.client.id}`, { token: owner.apiKey });
  t.is(before.body.data.isLegacy, true);
  const response = await patch(legacy.client.id, { scopes: ['BOOKING_READ', 'PROFILE_READ'] });
  t.is(response.status, 200);
  t.is(response.body.data.reviewStatus, 'APPROVED');
  t.is(response.body.data.isLegacy, false);
  const updated = (await audit(legacy.client.id)).find((e) => e.action === 'oauth_client.updated');
  t.like(updated!.details, { statusFrom: 'APPROVED', statusTo: 'APPROVED', leftLegacy: true });

  // A legacy client with the old values migrates the same way (dropping READ_BOOKING is part of it).
  const old = await insertClient(knex, { ownerUserId: owner.id, scopes: ['READ_BOOKING'] });
  const migrated = await patch(old.client.id, { scopes: ['BOOKING_READ'] });
  t.is(migrated.body.data.reviewStatus, 'APPROVED');
  t.is(migrated.body.data.isLegacy, false);
});

test('approved legacy client adding TEAM_ or ORG_ scopes goes to PENDING', async (t) => {
  const knex = world.system.stores.db.knex;
  for (const wide of ['TEAM_BOOKING_READ', 'ORG_PROFILE_READ']) {
    const legacy = await insertClient(knex, { ownerUserId: owner.id, scopes: [] });
    const response = await patch(legacy.client.id, { scopes: ['BOOKING_READ', wide] });
    t.is(response.status, 200);
    t.is(response.body.data.reviewStatus, 'PENDING', wide);
    t.is(response.body.data.isLegacy, false);
  }
});

test('a non-legacy client cannot clear its scopes or add legacy values', async (t) => {
  const created = await approvedClient(world, owner);
  const cleared = await patch(created.id, { scopes: [] });
  t.is(cleared.status, 400);
  t.is(cleared.body.error.details[0].field, 'body.scopes');
  const legacyValue = await patch(created.id, { scopes: ['BOOKING_READ', 'READ_PROFILE'] });
  t.is(legacyValue.status, 400);
  const after = await world.call('GET', `/v2/oauth-clients/${created.id}`, { token: owner.apiKey });
  t.is(after.body.data.reviewStatus, 'APPROVED');
});

test('REJECTED -> PENDING when the owner edits it (resubmission); approval is not direct', async (t) => {
  const created = await createClient(world, owner, { name: 'Try again' });
  await world.call('POST', `/v2/admin/oauth-clients/${created.id}/reject`, {
    token: world.admin.apiKey,
    body: { reason: 'Purpose unclear' },
  });
  const direct = await world.call('POST', `/v2/admin/oauth-clients/${created.id}/approve`, {
    token: world.admin.apiKey,
  });
  t.is(direct.status, 409);
  const flagsOnly = await patch(created.id, { areEmailsEnabled: true });
  t.is(flagsOnly.body.data.reviewStatus, 'REJECTED');
  const resubmitted = await patch(created.id, { purpose: 'Clear purpose now' });
  t.is(resubmitted.body.data.reviewStatus, 'PENDING');
  t.is(resubmitted.body.data.rejectionReason, null);
  const entries = await audit(created.id);
  t.truthy(
    entries.find(
      (e) => e.action === 'oauth_client.review_status_changed' && e.details['from'] === 'REJECTED',
    ),
  );
  t.is((await approve(world, created.id)).reviewStatus, 'APPROVED');
});
