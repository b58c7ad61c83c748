import { listAuditEntries } from '@sched/db/queries/audit-log';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { parseMail, waitForMail } from '../support/mail.ts';
import { formOf } from '../support/oauth.ts';
import { insertUser, insertClient } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import {
  CLIENTS,
  createThroughForm,
  organizationScene,
  page,
  post,
  rawPost,
  signedIn,
  text,
  validForm,
} from './helpers.ts';

// The OAuth-client settings pages over HTTP: create (validation shown next to fields, the secret
// shown once), list, edit under the review rules, secrets (at most 2), delete with confirmation,
// and who may see or change a client.

const TOO_MANY = 'Maximum of 2 secrets allowed. Delete an existing secret first.';
const LAST = 'Cannot delete the only active secret of a confidential client. Generate a new secret first.';

const world = setUpWorld(test);

test('create: the secret is shown once with a warning; a reload shows it no more', async (t) => {
  const owner = await insertUser(world.knex());
  const browser = await signedIn(world, owner);
  const { clientId, secret, result } = await createThroughForm(browser);
  t.truthy(secret);
  t.true(text(result.html).includes('it will not be shown again'));
  t.true(result.html.includes('data-copy="new-secret"'), 'copy button');
  const csp = (await browser.request(result.url)).headers.get('content-security-policy') ?? '';
  t.false(csp.includes('script-src'), 'the reloaded page has no secret and no script');
  const reload = page(await browser.open(result.url));
  t.false(reload.html.includes(secret!));
  t.true(text(reload.html).includes('shown once and cannot be shown again'));
  const client = await findOAuthClient(world.system.stores.db.knex, clientId);
  t.is(client?.reviewStatus, 'PENDING');
  t.is(client?.ownerUserId, owner.user.id);
  const list = page(await browser.open(CLIENTS));
  t.true(text(list.html).includes('Calendar Sync'));
  t.true(text(list.html).includes('In review'));
  t.false(list.html.includes(secret!));
  t.deepEqual(
    (await listAuditEntries(world.system.stores.db.knex, 'oauth_client', clientId)).map((e) => e.action),
    ['oauth_client.created'],
  );
});

test('create: validation errors are a 400 page with the message next to each field and the input kept', async (t) => {
  const browser = await signedIn(world, await insertUser(world.knex()));
  const form = page(await browser.open(`${CLIENTS}/new`));
  const bad = page(
    await browser.submit(form, CLIENTS, {
      ...validForm({
        name: '  ',
        redirectUris: 'http://app.example.com/cb\nhttps://ok.example/cb#frag',
        logo: 'http://logo.example/x.png',
      }),
      'scope.BOOKING_READ': '',
    }),
  );
  t.is(bad.status, 400);
  const errors = [
    ...bad.html.matchAll(/<span class="field-error" id="([a-zA-Z]+)-error">([^<]*)<\/span>/g),
  ].map((m) => [m[1], m[2]]);
  const byField = Object.fromEntries(errors);
  t.is(byField.name, 'must not be empty');
  t.regex(byField.redirectUris ?? '', /must use https.*\(line 1\)/);
  t.is(byField.logo, 'must be an https URL');
  t.true(bad.html.includes('http://app.example.com/cb'), 'what was typed is kept');
  const { 'scope.BOOKING_READ': _b, 'scope.PROFILE_READ': _p, ...withoutScopes } = validForm();
  const noScope = page(await browser.submit(form, CLIENTS, withoutScopes));
  t.is(noScope.status, 400);
  t.true(text(noScope.html).includes('at least one scope is required'));
  const unknown = page(await browser.submit(form, CLIENTS, { ...validForm(), 'scope.NOT_A_SCOPE': 'on' }));
  t.is(unknown.status, 400);
  t.true(text(unknown.html).includes("'NOT_A_SCOPE' is not a known scope"));
});

test("someone else's client is 404 on every page and action", async (t) => {
  const owner = await insertUser(world.knex());
  const { clientId } = await createThroughForm(await signedIn(world, owner));
  const stranger = await signedIn(world, await insertUser(world.knex()));
  const own = await createThroughForm(stranger);
  for (const path of [
    `${CLIENTS}/${clientId}`,
    `${CLIENTS}/${clientId}/edit`,
    `${CLIENTS}/${clientId}/delete`,
    `${CLIENTS}/does-not-exist`,
  ]) {
    const shown = page(await stranger.open(path));
    t.is(shown.status, 404, path);
    t.true(text(shown.html).includes('OAuth client not found'), path);
  }
  // Actions, with the stranger's own valid CSRF token (taken from their own client's page).
  const ownPage = page(await stranger.open(`${CLIENTS}/${own.clientId}`));
  const token = /name="_csrf" value="([^"]+)"/.exec(ownPage.html)![1]!;
  for (const path of [
    `${CLIENTS}/${clientId}/secrets`,
    `${CLIENTS}/${clientId}/delete`,
    `${CLIENTS}/${clientId}`,
  ]) {
    const response = await stranger.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, confirm: 'yes', ...validForm() }),
    });
    t.is(response.status, 404, path);
    await response.text();
  }
  t.truthy(await findOAuthClient(world.system.stores.db.knex, clientId));
});

test('organization members see its clients read-only (403 on changes); its admins and service admins manage them', async (t) => {
  const knex = world.system.stores.db.knex;
  const {
    orgId: org,
    users: { owner, member, admin: orgAdmin, invited },
  } = await organizationScene(world);
  const serviceAdmin = await insertUser(world.knex(), { serviceAdmin: true });
  const { client } = await insertClient(knex, { ownerUserId: owner.user.id, status: 'PENDING' });
  await knex('oauth_clients').where({ id: client.id }).update({ organization_id: org });
  const path = `${CLIENTS}/${client.id}`;

  const asMember = await signedIn(world, member);
  const seen = page(await asMember.open(path));
  t.is(seen.status, 200);
  t.true(text(seen.html).includes('only its owner and the organization'));
  t.false(seen.html.includes(`${path}/edit`));
  t.true(text(page(await asMember.open(CLIENTS)).html).includes(client.name));
  t.is(page(await asMember.open(`${path}/edit`)).status, 403);
  t.is(page(await asMember.open(`${path}/delete`)).status, 403);
  const token = /name="_csrf" value="([^"]+)"/.exec(seen.html)![1]!;
  const generate = await asMember.request(`${path}/secrets`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token }),
  });
  t.is(generate.status, 403);
  await generate.text();

  t.is(
    page(await (await signedIn(world, invited)).open(path)).status,
    404,
    'an unaccepted invitation counts for nothing',
  );

  for (const manager of [orgAdmin, serviceAdmin]) {
    const browser = await signedIn(world, manager);
    const edit = page(await browser.open(`${path}/edit`));
    t.is(edit.status, 200);
    const saved = await post(browser, edit, path, {
      ...validForm({ name: `Renamed by ${manager.user.id}` }),
    });
    t.is(saved.status, 200);
    t.true(text(saved.html).includes(`Renamed by ${manager.user.id}`));
  }
});

test('edit: an approved client goes back to review (the form warns first), the owner is e-mailed; bad input is a 400 form', async (t) => {
  const owner = await insertUser(world.knex());
  const browser = await signedIn(world, owner);
  const { client } = await insertClient(world.system.stores.db.knex, {
    ownerUserId: owner.user.id,
    name: 'Approved App',
    redirectUris: ['https://approved.example/cb'],
  });
  const path = `${CLIENTS}/${client.id}`;
  const edit = page(await browser.open(`${path}/edit`));
  t.true(text(edit.html).includes('sends it back to review'));
  // The edit form as the owner would send it: the same scopes, `changes` on top.
  const save = (changes: Record<string, string>) =>
    post(browser, edit, path, {
      name: 'Approved App',
      redirectUris: 'https://approved.example/cb',
      'scope.PROFILE_READ': 'on',
      'scope.BOOKING_READ': 'on',
      ...changes,
    });
  const invalid = await save({ redirectUris: 'not a url' });
  t.is(invalid.status, 400);
  t.true(text(invalid.html).includes('must be an absolute URL'));
  t.is((await findOAuthClient(world.system.stores.db.knex, client.id))?.reviewStatus, 'APPROVED');

  const flagsOnly = await save({});
  t.true(text(flagsOnly.html).includes('Changes saved.'));
  t.is(
    (await findOAuthClient(world.system.stores.db.knex, client.id))?.reviewStatus,
    'APPROVED',
    'nothing reviewed changed',
  );

  const renamed = await save({ name: 'Approved App 2' });
  t.is(renamed.status, 200);
  t.true(text(renamed.html).includes('went back to review'));
  t.is((await findOAuthClient(world.system.stores.db.knex, client.id))?.reviewStatus, 'PENDING');
  const mail = await waitForMail(world, owner.email, (m) =>
    parseMail(m.raw).subject.includes('is back in review'),
  );
  t.true(parseMail(mail.raw).body.includes('/auth/settings/developer/oauth-clients'));
});

test("creations and new secrets count against the API's limits (the same counters): 429 past them", async (t) => {
  const owner = await insertUser(world.knex());
  const browser = await signedIn(world, owner);
  const { clientId } = await createThroughForm(browser);
  const path = `${CLIENTS}/${clientId}`;

  // 49 more creations this hour through the API (counted straight into its counter): the page's
  // one made it 50, so the next is refused on the page and through the API alike.
  for (let i = 0; i < 49; i++) await world.store().hit(`api:oauth-clients:user:${owner.user.id}`, 3600);
  const form = page(await browser.open(`${CLIENTS}/new`));
  const refused = await rawPost(browser, CLIENTS, { ...formOf(form.html, CLIENTS)!.hidden, ...validForm() });
  t.is(refused.status, 429);
  t.regex(text(refused.html), /Too many OAuth clients created/);
  const viaApi = await world.call('POST', '/v2/oauth-clients', {
    token: owner.apiKey,
    body: { name: 'One more', redirectUris: ['https://app.example.com/cb'], scopes: ['PROFILE_READ'] },
  });
  t.is(viaApi.status, 429, 'the API counts the page');
  const listed = await world.call('GET', '/v2/oauth-clients', { token: owner.apiKey });
  t.is(listed.body.data.length, 1, 'no second client was made');

  for (let i = 0; i < 50; i++) await world.store().hit(`api:client-secrets:user:${owner.user.id}`, 3600);
  const detail = page(await browser.open(path));
  const secretRefused = await rawPost(
    browser,
    `${path}/secrets`,
    formOf(detail.html, `${path}/secrets`)!.hidden,
  );
  t.is(secretRefused.status, 429);
  t.regex(text(secretRefused.html), /Too many client secrets generated/);
  const secrets = await world.call('GET', `/v2/oauth-clients/${encodeURIComponent(clientId)}/secrets`, {
    token: owner.apiKey,
  });
  t.is(secrets.body.data.length, 1, 'no secret was made');
});

test('secrets: a second is generated and shown once, a third is refused with the exact message; revoke; the last cannot go', async (t) => {
  const browser = await signedIn(world, await insertUser(world.knex()));
  const { clientId, secret: first } = await createThroughForm(browser);
  const path = `${CLIENTS}/${clientId}`;
  const detail = page(await browser.open(path));
  const second = await post(browser, detail, `${path}/secrets`);
  t.is(second.status, 200);
  const secondSecret = /id="new-secret"[^>]*value="([^"]+)"/.exec(second.html)?.[1];
  t.truthy(secondSecret);
  t.not(secondSecret, first);
  t.is([...second.html.matchAll(/\/revoke"/g)].length, 2);

  const third = await post(browser, second, `${path}/secrets`);
  t.is(third.status, 400);
  t.true(text(third.html).includes(TOO_MANY));
  t.is([...third.html.matchAll(/\/revoke"/g)].length, 2);

  const revokeAction = /action="([^"]+\/revoke)"/.exec(third.html)![1]!;
  const revoked = await post(browser, third, revokeAction);
  t.is(revoked.status, 200);
  t.true(text(revoked.html).includes('Secret revoked'));
  t.is([...revoked.html.matchAll(/\/revoke"/g)].length, 1);
  const lastAction = /action="([^"]+\/revoke)"/.exec(revoked.html)![1]!;
  const refused = await post(browser, revoked, lastAction);
  t.is(refused.status, 400);
  t.true(text(refused.html).includes(LAST));
  const actions = (await listAuditEntries(world.system.stores.db.knex, 'oauth_client', clientId)).map(
    (e) => e.action,
  );
  t.deepEqual(actions, [
    'oauth_client.created',
    'oauth_client.secret_created',
    'oauth_client.secret_revoked',
  ]);
});

test('public clients: no secret at creation and no secret actions', async (t) => {
  const browser = await signedIn(world, await insertUser(world.knex()));
  const { secret, result } = await createThroughForm(browser, { clientType: 'public' });
  t.is(secret, null);
  t.true(text(result.html).includes('Public clients do not use client secrets'));
  t.false(result.html.includes('/secrets"'));
});

test('delete: a confirmation page first; a POST without the confirmation deletes nothing; then 404', async (t) => {
  const browser = await signedIn(world, await insertUser(world.knex()));
  const { clientId } = await createThroughForm(browser, { name: 'Doomed App' });
  const path = `${CLIENTS}/${clientId}`;
  const confirm = page(await browser.open(`${path}/delete`));
  t.true(text(confirm.html).includes('Delete Doomed App?'));
  const unconfirmed = await post(browser, confirm, `${path}/delete`, { confirm: 'no' });
  t.is(unconfirmed.url.pathname, `${path}/delete`);
  t.truthy(await findOAuthClient(world.system.stores.db.knex, clientId));
  const done = await post(browser, confirm, `${path}/delete`);
  t.is(done.url.pathname, CLIENTS);
  t.true(text(done.html).includes('Client deleted.'));
  t.is(await findOAuthClient(world.system.stores.db.knex, clientId), null);
  t.is(page(await browser.open(path)).status, 404);
});

test('the token store holds a shown-once secret only sealed, under the hash of the reveal id', async (t) => {
  const redis = world.system.redis;
  if (!redis) return t.pass('needs REDIS_URL to read the store directly');
  const browser = await signedIn(world, await insertUser(world.knex()));
  const form = page(await browser.open(`${CLIENTS}/new`));
  const { action, hidden } = formOf(form.html, CLIENTS)!;
  const created = await rawPost(browser, action, { ...hidden, ...validForm() });
  t.is(created.status, 303);
  const revealUrl = new URL(created.location!, world.system.url);
  const revealId = revealUrl.searchParams.get('reveal')!;
  t.truthy(revealId);

  const stored: string[] = [];
  for (const key of await redis.redis.keys(`${redis.prefix}*`)) {
    stored.push(key);
    if ((await redis.redis.type(key)) === 'string') stored.push((await redis.redis.get(key)) ?? '');
  }
  const shown = page(await browser.open(revealUrl));
  const secret = /id="new-secret"[^>]*value="([^"]+)"/.exec(shown.html)?.[1];
  t.truthy(secret);
  t.false(
    stored.some((value) => value.includes(secret!)),
    'the plain secret is never stored',
  );
  t.false(
    stored.some((value) => value.includes(revealId)),
    'nor the id that unseals it',
  );
});

test('edit of an approved legacy client: saving only user-level scopes keeps it APPROVED and ends legacy; TEAM_/ORG_ scopes send it to review', async (t) => {
  const owner = await insertUser(world.knex());
  const browser = await signedIn(world, owner);
  const legacyClient = async (scopes: string[]) =>
    (
      await insertClient(world.system.stores.db.knex, {
        ownerUserId: owner.user.id,
        name: `Legacy ${scopes.join(' ') || 'none'}`,
        redirectUris: ['https://legacy.example/cb'],
        scopes,
      })
    ).client;
  /** The edit form as the owner sends it: the client's own fields, with `scopes` ticked. */
  const saveScopes = async (client: { id: string; name: string }, scopes: string[]) => {
    const path = `${CLIENTS}/${client.id}`;
    const edit = page(await browser.open(`${path}/edit`));
    const ticked = Object.fromEntries(scopes.map((scope) => [`scope.${scope}`, 'on']));
    const saved = await post(browser, edit, path, {
      name: client.name,
      redirectUris: 'https://legacy.example/cb',
      ...ticked,
    });
    t.is(saved.status, 200, saved.html);
    return (await findOAuthClient(world.system.stores.db.knex, client.id))!;
  };

  // No scopes at all, and the old READ_BOOKING (shown on the form as a kept legacy value).
  for (const before of [[], ['READ_BOOKING']]) {
    const client = await legacyClient(before);
    t.true(client.isLegacy);
    const after = await saveScopes(client, ['BOOKING_READ', 'PROFILE_READ']);
    t.is(after.reviewStatus, 'APPROVED', `from ${JSON.stringify(before)}`);
    t.false(after.isLegacy);
    t.deepEqual([...after.scopes].sort(), ['BOOKING_READ', 'PROFILE_READ']);
  }
  for (const wide of ['TEAM_BOOKING_READ', 'ORG_PROFILE_READ']) {
    const after = await saveScopes(await legacyClient([]), ['BOOKING_READ', wide]);
    t.is(after.reviewStatus, 'PENDING', wide);
    t.false(after.isLegacy);
  }
});
