import { listAuditEvents, recordAuditEvent } from '@sched/db/queries/audit-log';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { insertClient, insertUser } from '../support/factories.ts';
import { parseMail, waitForMail } from '../support/mail.ts';
import { FlowBrowser, clientCredentials, issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { ADMIN, page, post, rawPost, signedIn, text } from './helpers.ts';

// The admin console: users, every OAuth client, the audit log; service administrators only, every
// action a CSRF-checked form, audited with the administrator as actor.

const USERS = '/auth/admin/users';
const CLIENTS = '/auth/admin/clients';
const AUDIT = '/auth/admin/audit';

const world = setUpWorld(test, { clients: { app: {} } });

const eventsOf = async (targetType: string, targetId: string | number) =>
  (await listAuditEvents(world.knex(), { targetType, targetId: String(targetId) }, { take: 50 })).events;

/** Signs in on the settings sign-in page; whether it worked. */
async function canSignIn(email: string, password: string): Promise<boolean> {
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open('/auth/settings'));
  const result = page(await browser.submit(form, '/auth/settings/sign-in', { email, password }));
  return result.status === 200 && result.url.pathname === '/auth/settings';
}

test('users: search, disable (sign-in and API key refused at once), enable, reset link, grant and remove administrator, all audited', async (t) => {
  const tag = `${Date.now().toString(36)}`;
  const target = await insertUser(world.knex(), { name: `Console Person ${tag}` });
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const browser = await signedIn(world, admin);
  t.is((await world.call('GET', '/v2/me', { token: target.apiKey })).status, 200);

  // Search by name and by part of the e-mail.
  const byName = page(await browser.open(`${USERS}?q=${encodeURIComponent(`console person ${tag}`)}`));
  t.is(byName.status, 200);
  t.true(text(byName.html).includes(target.email));
  const byEmail = page(await browser.open(`${USERS}?q=${encodeURIComponent(target.email.slice(0, 20))}`));
  t.true(byEmail.html.includes(`href="${USERS}/${target.id}"`));
  const none = page(await browser.open(`${USERS}?q=${encodeURIComponent(`nobody-${tag}%`)}`));
  t.true(text(none.html).includes('No users found.'));

  const view = page(await browser.open(`${USERS}/${target.id}`));
  t.is(view.status, 200);
  // The console's navigation, also on the review queue; the settings pages link to the console.
  for (const html of [view.html, page(await browser.open(ADMIN)).html]) {
    for (const path of [USERS, CLIENTS, ADMIN, AUDIT]) t.true(html.includes(`href="${path}"`), path);
  }
  t.true(page(await browser.open('/auth/settings')).html.includes(`href="${USERS}"`));
  t.true(text(view.html).includes(target.email));
  t.regex(text(view.html), /Disabled No/);

  // Disable.
  const disabled = await post(browser, view, `${USERS}/${target.id}/disable`);
  t.is(disabled.status, 200);
  t.true(text(disabled.html).includes('Account disabled.'));
  t.regex(text(disabled.html), /Disabled Yes/);
  t.is((await world.call('GET', '/v2/me', { token: target.apiKey })).status, 401);
  t.false(await canSignIn(target.email, target.password));

  // Enable: signing in works again (the old key stays revoked).
  const enabled = await post(browser, disabled, `${USERS}/${target.id}/enable`);
  t.true(text(enabled.html).includes('Account enabled.'));
  t.true(await canSignIn(target.email, target.password));
  t.is((await world.call('GET', '/v2/me', { token: target.apiKey })).status, 401);

  // Reset link: the mail arrives with a usable link.
  const reset = await post(browser, enabled, `${USERS}/${target.id}/reset-link`);
  t.true(text(reset.html).includes('Reset link sent'));
  const mail = parseMail(
    (await waitForMail(world, target.email, (m) => parseMail(m.raw).subject === 'Reset your password')).raw,
  );
  t.regex(mail.text, /\/auth\/reset-password\?token=/);

  // Grant and remove service administrator.
  const granted = await post(browser, reset, `${USERS}/${target.id}/grant-admin`);
  t.true(text(granted.html).includes('is a service administrator now'));
  const targetBrowser = await signedIn(world, target);
  t.is(page(await targetBrowser.open(USERS)).status, 200, 'the new administrator uses the console');
  const removed = await post(browser, granted, `${USERS}/${target.id}/remove-admin`);
  t.true(text(removed.html).includes('no longer a service administrator'));
  t.is(page(await targetBrowser.open(USERS)).status, 403, 'at once');

  // Audited, with the administrator as actor.
  const events = await eventsOf('user', target.id);
  const actions = events.map((event) => event.action).reverse();
  t.deepEqual(
    actions.filter((action) => action.startsWith('user.') && action !== 'user.password_reset'),
    ['user.disabled', 'user.enabled', 'user.reset_link_sent', 'user.admin_granted', 'user.admin_removed'],
  );
  for (const event of events) if (event.action !== 'user.password_reset') t.is(event.actor.userId, admin.id);
  t.deepEqual(events.find((event) => event.action === 'user.admin_granted')?.after, { isServiceAdmin: true });

  // The audit page shows them, filtered by target.
  const audit = page(await browser.open(`${AUDIT}?targetType=user&targetId=${target.id}`));
  t.is(audit.status, 200);
  for (const action of [
    'user.disabled',
    'user.enabled',
    'user.reset_link_sent',
    'user.admin_granted',
    'user.admin_removed',
  ])
    t.true(audit.html.includes(action), action);
  const byAction = page(await browser.open(`${AUDIT}?action=user.admin_removed&actor=${admin.id}`));
  t.true(text(byAction.html).includes(`user ${target.id}`));
  t.false(byAction.html.includes('user.admin_granted'));
});

test('an administrator cannot disable or demote themselves', async (t) => {
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const browser = await signedIn(world, admin);
  const view = page(await browser.open(`${USERS}/${admin.id}`));
  t.false(view.html.includes(`${USERS}/${admin.id}/disable`));
  t.false(view.html.includes(`${USERS}/${admin.id}/remove-admin`));
  const token = /name="_csrf" value="([^"]+)"/.exec(view.html)![1]!;
  t.is((await rawPost(browser, `${USERS}/${admin.id}/remove-admin`, { _csrf: token })).status, 409);
  t.is((await rawPost(browser, `${USERS}/${admin.id}/disable`, { _csrf: token })).status, 409);
  t.is((await world.call('GET', '/v2/me', { token: admin.apiKey })).status, 200);
});

test('clients: filter by status; suspend ends the tokens at once and puts it back in review; approve again', async (t) => {
  const app = world.clients.app;
  const person = await insertUser(world.knex());
  const tokens = await issueTokens(world.system.url, app, person);
  t.is((await world.call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const browser = await signedIn(world, admin);

  const approvedList = page(await browser.open(`${CLIENTS}?status=APPROVED&take=100`));
  t.is(approvedList.status, 200);
  const pendingList = page(await browser.open(`${CLIENTS}?status=PENDING&take=100`));
  t.false(pendingList.html.includes(app.client.id));
  const view = page(await browser.open(`${CLIENTS}/${app.client.id}`));
  t.is(view.status, 200);
  t.true(text(view.html).includes(app.client.name));

  // A reason is required.
  const empty = await post(browser, view, `${CLIENTS}/${app.client.id}/suspend`, { reason: '  ' });
  t.is(empty.status, 400);
  t.true(empty.html.includes('id="reason-error"'));
  t.is((await findOAuthClient(world.knex(), app.client.id))?.reviewStatus, 'APPROVED');

  const suspended = await post(browser, view, `${CLIENTS}/${app.client.id}/suspend`, {
    reason: 'Reported for phishing',
  });
  t.is(suspended.status, 200);
  t.true(text(suspended.html).includes('Client suspended.'));
  t.is((await findOAuthClient(world.knex(), app.client.id))?.reviewStatus, 'PENDING');
  t.is((await world.call('GET', '/v2/me', { token: tokens.access_token })).status, 401);
  const refresh = () =>
    tokenRequest(world.system.url, {
      ...clientCredentials(app),
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
  const whilePending = await refresh();
  t.is(whilePending.status, 401);
  t.is(whilePending.body.error, 'unauthorized_client');
  t.true(page(await browser.open(`${CLIENTS}?status=PENDING&take=100`)).html.includes(app.client.id));
  t.true(page(await browser.open(ADMIN)).html.includes(app.client.id), 'in the review queue');
  // New authorizations are refused as for any pending client.
  await t.throwsAsync(issueTokens(world.system.url, app, person));

  // Suspending again is a conflict.
  t.is((await post(browser, view, `${CLIENTS}/${app.client.id}/suspend`, { reason: 'again' })).status, 409);

  const event = (await eventsOf('oauth_client', app.client.id)).find(
    (e) => e.action === 'oauth_client.suspended',
  );
  t.is(event?.actor.userId, admin.id);
  t.is(event?.details.reason, 'Reported for phishing');
  t.deepEqual(event?.after, { reviewStatus: 'PENDING' });

  // Approve again from the client's page (the review action): the old refresh token stays dead.
  const pendingView = page(await browser.open(`${CLIENTS}/${app.client.id}`));
  const approved = await post(browser, pendingView, `${ADMIN}/${app.client.id}/approve`);
  t.true(text(approved.html).includes('Client approved.'));
  t.is((await findOAuthClient(world.knex(), app.client.id))?.reviewStatus, 'APPROVED');
  const afterApproval = await refresh();
  t.is(afterApproval.status, 400);
  t.is(afterApproval.body.error, 'invalid_grant');
  const fresh = await issueTokens(world.system.url, app, person);
  t.is((await world.call('GET', '/v2/me', { token: fresh.access_token })).status, 200);

  const audit = page(await browser.open(`${AUDIT}?targetType=oauth_client&targetId=${app.client.id}`));
  t.true(audit.html.includes('oauth_client.suspended'));
  t.true(audit.html.includes('oauth_client.approved'));
});

test('the audit log pages newest first with a cursor that keeps the filters', async (t) => {
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const browser = await signedIn(world, admin);
  const targetId = `paging-${Date.now().toString(36)}`;
  for (let i = 1; i <= 55; i += 1) {
    await recordAuditEvent(world.knex(), undefined, {
      action: 'test.paged',
      targetType: 'test_target',
      targetId,
      details: { n: i },
    });
  }
  const numbers = (html: string) => [...html.matchAll(/{&quot;n&quot;:(\d+)}/g)].map((m) => Number(m[1]));
  const first = page(await browser.open(`${AUDIT}?targetType=test_target&targetId=${targetId}`));
  t.is(first.status, 200);
  t.deepEqual(
    numbers(first.html),
    Array.from({ length: 50 }, (_, i) => 55 - i),
  );
  const next = /href="([^"]+)"[^>]*>Older</.exec(first.html.replace(/rel="next" /g, ''))?.[1];
  t.truthy(next);
  const second = page(await browser.open(next!.replace(/&amp;/g, '&')));
  t.deepEqual(numbers(second.html), [5, 4, 3, 2, 1]);
  t.true(second.html.includes('>Newest<'));
  t.false(second.html.includes('>Older<'));
  t.is(page(await browser.open(`${AUDIT}?cursor=not*valid`)).status, 400);
  t.is(page(await browser.open(`${AUDIT}?actor=abc`)).status, 400);
  // A cursor of the right form naming an impossible time is refused the same way, not a 500.
  const impossible = Buffer.from(JSON.stringify({ at: '2026-02-30T10:00:00.000000Z', id: 5 })).toString(
    'base64url',
  );
  t.is(page(await browser.open(`${AUDIT}?cursor=${impossible}`)).status, 400);
});

test('the console address /auth/admin/ opens the console for administrators only', async (t) => {
  const admin = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));
  for (const path of ['/auth/admin', '/auth/admin/']) {
    const opened = page(await admin.open(path));
    t.is(opened.status, 200, path);
    t.is(opened.url.pathname, USERS, path);
  }
  const person = await signedIn(world, await insertUser(world.knex()));
  t.is(page(await person.open('/auth/admin/')).status, 403);
  const signedOut = page(await new FlowBrowser(world.system.url).open('/auth/admin/'));
  t.is(signedOut.url.pathname, '/auth/settings/sign-in');
});

test('non-administrators get 403, signed-out people the sign-in page, and every action needs the CSRF token', async (t) => {
  const person = await insertUser(world.knex());
  const other = await insertUser(world.knex());
  const client = await insertClient(world.knex());
  const browser = await signedIn(world, person);
  for (const path of [USERS, `${USERS}/${other.id}`, CLIENTS, `${CLIENTS}/${client.client.id}`, AUDIT])
    t.is(page(await browser.open(path)).status, 403, path);
  t.false(page(await browser.open('/auth/settings')).html.includes(USERS), 'no console tab');
  const token = /name="_csrf" value="([^"]+)"/.exec(page(await browser.open('/auth/settings')).html)![1]!;
  t.is((await rawPost(browser, `${USERS}/${other.id}/disable`, { _csrf: token })).status, 403);
  t.is((await world.call('GET', '/v2/me', { token: other.apiKey })).status, 200);

  const signedOut = new FlowBrowser(world.system.url);
  const redirected = page(await signedOut.open(`${USERS}?q=x`));
  t.is(redirected.url.pathname, '/auth/settings/sign-in');
  t.is(redirected.url.searchParams.get('return'), `${USERS}?q=x`);

  const admin = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));
  t.is((await rawPost(admin, `${USERS}/${other.id}/disable`, {})).status, 403);
  t.is(
    (await rawPost(admin, `${USERS}/${other.id}/disable`, { _csrf: token })).status,
    403,
    "another user's token",
  );
  t.is((await rawPost(admin, `${CLIENTS}/${client.client.id}/suspend`, { reason: 'x' })).status, 403);
  t.is((await world.call('GET', '/v2/me', { token: other.apiKey })).status, 200);
  t.is((await findOAuthClient(world.knex(), client.client.id))?.reviewStatus, 'APPROVED');
});
