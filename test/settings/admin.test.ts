import { listAuditEntries } from '@sched/db/queries/audit-log';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { parseMail, waitForMail } from '../support/mail.ts';
import { insertUser } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { ADMIN, createThroughForm, page, post, rawPost, signedIn, text } from './helpers.ts';

// The review page: service administrators only; approve and reject (reason required) go through
// the same state machine, audit log and e-mails as the API.

const world = setUpWorld(test);

test('people who are not service administrators get 403 on the review page and its actions, as from the admin API', async (t) => {
  const owner = await insertUser(world.knex());
  const browser = await signedIn(world, owner);
  const { clientId } = await createThroughForm(browser);
  const shown = page(await browser.open(ADMIN));
  t.is(shown.status, 403);
  t.true(text(shown.html).includes('Only service administrators may use the admin console'));
  t.false(page(await browser.open('/auth/settings')).html.includes(ADMIN), 'no review tab');
  const token = /name="_csrf" value="([^"]+)"/.exec(page(await browser.open('/auth/settings')).html)![1]!;
  for (const action of ['approve', 'reject']) {
    const response = await rawPost(browser, `${ADMIN}/${clientId}/${action}`, { _csrf: token, reason: 'x' });
    t.is(response.status, 403, action);
  }
  t.is((await findOAuthClient(world.system.stores.db.knex, clientId))?.reviewStatus, 'PENDING');
});

test('approve: the client leaves the queue, the owner gets the e-mail, the audit log has it; approving again is 409', async (t) => {
  const owner = await insertUser(world.knex());
  const { clientId } = await createThroughForm(await signedIn(world, owner), { name: 'Queue Approve' });
  const admin = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));
  const queue = page(await admin.open(ADMIN));
  t.is(queue.status, 200);
  t.true(text(queue.html).includes('Queue Approve'));
  t.true(text(queue.html).includes(owner.email));
  const approved = await post(admin, queue, `${ADMIN}/${clientId}/approve`);
  t.is(approved.status, 200);
  t.true(text(approved.html).includes('Client approved.'));
  t.false(text(approved.html).includes('Queue Approve'));
  t.is((await findOAuthClient(world.system.stores.db.knex, clientId))?.reviewStatus, 'APPROVED');
  const mail = await waitForMail(world, owner.email, (m) =>
    parseMail(m.raw).subject.includes('was approved'),
  );
  t.true(parseMail(mail.raw).subject.includes('Queue Approve'));
  const entry = (await listAuditEntries(world.system.stores.db.knex, 'oauth_client', clientId)).find(
    (e) => e.action === 'oauth_client.approved',
  );
  t.is(entry?.details.to, 'APPROVED');
  const again = await post(admin, queue, `${ADMIN}/${clientId}/approve`);
  t.is(again.status, 409);
  t.true(text(again.html).includes('Only a pending client can be approved (client is APPROVED)'));
});

test('reject: a reason is required (400 next to the field); with one, the owner is e-mailed it', async (t) => {
  const owner = await insertUser(world.knex());
  const { clientId } = await createThroughForm(await signedIn(world, owner), { name: 'Queue Reject' });
  const admin = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));
  const queue = page(await admin.open(ADMIN));
  const empty = await post(admin, queue, `${ADMIN}/${clientId}/reject`, { reason: '   ' });
  t.is(empty.status, 400);
  t.regex(empty.html, new RegExp(`id="reason-${clientId}-error">[^<]+<`));
  t.is((await findOAuthClient(world.system.stores.db.knex, clientId))?.reviewStatus, 'PENDING');
  const rejected = await post(admin, queue, `${ADMIN}/${clientId}/reject`, {
    reason: 'Website does not describe the app',
  });
  t.true(text(rejected.html).includes('Client rejected.'));
  const client = await findOAuthClient(world.system.stores.db.knex, clientId);
  t.is(client?.reviewStatus, 'REJECTED');
  t.is(client?.rejectionReason, 'Website does not describe the app');
  const mail = await waitForMail(world, owner.email, (m) =>
    parseMail(m.raw).subject.includes('was rejected'),
  );
  t.true(parseMail(mail.raw).body.includes('Website does not describe the app'));
  // The owner sees the reason in the list and on the client's page.
  const ownerBrowser = await signedIn(world, owner);
  t.true(
    text(page(await ownerBrowser.open('/auth/settings/developer/oauth-clients')).html).includes(
      'Website does not describe the app',
    ),
  );
  const entry = (await listAuditEntries(world.system.stores.db.knex, 'oauth_client', clientId)).find(
    (e) => e.action === 'oauth_client.rejected',
  );
  t.is(entry?.details.reason, 'Website does not describe the app');
});
