import { listAuditEvents } from '@sched/db/queries/audit-log';
import { findResourceServer } from '@sched/db/queries/resource-servers';
import { sha256Hex } from '@sched/kit/secrets';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { FlowBrowser, issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// The admin console's resource servers: registered with a secret shown exactly once and kept only
// as a hash, listed, deleted (its introspection credentials stop at once). Administrators only,
// CSRF-checked, audited.

const SERVERS = '/auth/admin/resource-servers';
const INTROSPECT = '/v2/auth/oauth2/introspect';
const world = setUpWorld(test, { clients: { app: { scopes: ['PROFILE_READ'] } } });

const introspect = (clientId: string, secret: string, token: string) =>
  tokenRequest(world.system.url, { token }, { path: INTROSPECT, basic: { clientId, secret } });

test('register: name required (400); the secret is shown once, stored as a hash, and introspects any token; deleted, it is refused at once; audited', async (t) => {
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const browser = await signedIn(world, admin);
  const list = page(await browser.open(SERVERS));
  t.is(list.status, 200);

  const empty = await post(browser, list, SERVERS, { name: '  ', description: 'x' });
  t.is(empty.status, 400);
  t.true(empty.html.includes('id="rs-name-error"'));
  t.true(empty.html.includes('>x</textarea>'), 'what was typed stays');

  const name = `Bookings API ${Date.now().toString(36)}`;
  const shown = await post(browser, list, SERVERS, { name, description: 'checks tokens' });
  t.is(shown.status, 200);
  const id = decodeURIComponent(shown.url.pathname.split('/').pop() ?? '');
  t.regex(id, /^rs_/);
  const secret = /id="new-secret"[^>]*value="([^"]+)"/.exec(shown.html)?.[1];
  t.truthy(secret);
  t.true(text(shown.html).includes('it will not be shown again'));

  // Never again: not on a reload, not on the list, not in the database.
  const reloaded = page(await browser.open(shown.url.href));
  t.false(reloaded.html.includes(secret!));
  t.true(text(reloaded.html).includes('cannot be shown again'));
  const listed = page(await browser.open(SERVERS));
  t.true(listed.html.includes(`href="${SERVERS}/${id}"`));
  t.true(text(listed.html).includes(name));
  t.false(listed.html.includes(secret!));
  const row = await world.knex()('resource_servers').where({ id }).first();
  t.is(row.secret_hash, sha256Hex(secret!));
  t.false(JSON.stringify(row).includes(secret!));
  t.like(await findResourceServer(world.knex(), id), {
    name,
    description: 'checks tokens',
    createdByUserId: admin.id,
  });

  // It introspects a token of any client.
  const tokens = await issueTokens(world.system.url, world.clients.app, await insertUser(world.knex()));
  const active = await introspect(id, secret!, tokens.access_token);
  t.is(active.status, 200);
  t.like(active.body, { active: true, client_id: world.clients.app.client.id });

  const deleted = await post(browser, reloaded, `${SERVERS}/${id}/delete`);
  t.is(deleted.status, 200);
  t.true(text(deleted.html).includes('Resource server deleted.'));
  t.false(deleted.html.includes(`href="${SERVERS}/${id}"`));
  const refused = await introspect(id, secret!, tokens.access_token);
  t.is(refused.status, 401);
  t.is(refused.body.error, 'invalid_client');
  t.is(page(await browser.open(`${SERVERS}/${id}`)).status, 404);
  t.is((await post(browser, reloaded, `${SERVERS}/${id}/delete`)).status, 404);

  const events = (
    await listAuditEvents(world.knex(), { targetType: 'resource_server', targetId: id }, { take: 10 })
  ).events;
  t.deepEqual(events.map((e) => [e.action, e.actor.userId]).reverse(), [
    ['resource_server.created', admin.id],
    ['resource_server.deleted', admin.id],
  ]);
  t.false(JSON.stringify(events).includes(secret!));
});

test('a reveal link belongs to the administrator who registered the server', async (t) => {
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const browser = await signedIn(world, admin);
  const list = page(await browser.open(SERVERS));
  // Stop at the redirect: another administrator opens its link first.
  const token = /name="_csrf" value="([^"]+)"/.exec(list.html)![1]!;
  const made = await rawPost(browser, SERVERS, { _csrf: token, name: 'Reveal Owner' });
  t.is(made.status, 303);
  const other = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));
  const theirs = page(await other.open(new URL(made.location!, world.system.url).href));
  t.is(theirs.status, 200);
  t.false(theirs.html.includes('id="new-secret"'));
  const mine = page(await browser.open(new URL(made.location!, world.system.url).href));
  t.true(mine.html.includes('id="new-secret"'));
});

test('non-administrators get 403, signed-out people the sign-in page, and every action needs the CSRF token', async (t) => {
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const adminBrowser = await signedIn(world, admin);
  const made = await post(adminBrowser, page(await adminBrowser.open(SERVERS)), SERVERS, { name: 'Kept' });
  const id = decodeURIComponent(made.url.pathname.split('/').pop() ?? '');

  const person = await insertUser(world.knex());
  const browser = await signedIn(world, person);
  for (const path of [SERVERS, `${SERVERS}/${id}`]) t.is(page(await browser.open(path)).status, 403, path);
  const token = /name="_csrf" value="([^"]+)"/.exec(page(await browser.open('/auth/settings')).html)![1]!;
  t.is((await rawPost(browser, SERVERS, { _csrf: token, name: 'Mine' })).status, 403);
  t.is((await rawPost(browser, `${SERVERS}/${id}/delete`, { _csrf: token })).status, 403);

  const signedOut = new FlowBrowser(world.system.url);
  t.is(page(await signedOut.open(SERVERS)).url.pathname, '/auth/settings/sign-in');

  t.is((await rawPost(adminBrowser, `${SERVERS}/${id}/delete`, {})).status, 403, 'no token');
  t.is(
    (await rawPost(adminBrowser, `${SERVERS}/${id}/delete`, { _csrf: token })).status,
    403,
    "another's token",
  );
  t.is((await rawPost(adminBrowser, SERVERS, { _csrf: token, name: 'Forged' })).status, 403);
  t.truthy(await findResourceServer(world.knex(), id));
  const names = (await world.knex()('resource_servers').select('name')).map(
    (row: { name: string }) => row.name,
  );
  t.false(names.includes('Mine'));
  t.false(names.includes('Forged'));
});
