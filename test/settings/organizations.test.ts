import { ORGANIZATION_FORBIDDEN } from '@sched/clients/rights';
import { listAuditEntries } from '@sched/db/queries/audit-log';
import { listClientsVisibleTo } from '@sched/db/queries/oauth-client-management';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { insertUser, insertMembership, insertOrganization, type RoleName } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { CLIENTS, createThroughForm, organizationScene, page, signedIn, text, validForm } from './helpers.ts';

// Clients of organizations on the settings pages: the owner select of the create form (the
// organizations the user administers), the library's rules for a refused organization shown on the
// form, and organization clients in the list and on their page (read-only for MEMBERs).

const world = setUpWorld(test);

const orgName = async (id: number) =>
  ((await world.system.stores.db.knex('organizations').where({ id }).first('name')) as { name: string }).name;

/** A new organization where `userId` has `role` (accepted unless told otherwise). */
async function orgWith(userId: number, role: RoleName, accepted = true): Promise<number> {
  const knex = world.system.stores.db.knex;
  const organizationId = await insertOrganization(knex);
  await insertMembership(knex, { userId, organizationId, role, accepted });
  return organizationId;
}

/** The options of the owner select: [value, label]. */
const ownerOptions = (html: string) => {
  const select = /<select id="organizationId"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '';
  return [...select.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
};

const fieldError = (html: string, field: string) =>
  new RegExp(`<span class="field-error" id="${field}-error">([^<]*)</span>`).exec(html)?.[1];

test('the owner select offers Personal and the organizations where the user is an accepted ADMIN or OWNER', async (t) => {
  const user = await insertUser(world.knex());
  const owned = await orgWith(user.user.id, 'OWNER');
  const administered = await orgWith(user.user.id, 'ADMIN');
  const membered = await orgWith(user.user.id, 'MEMBER');
  const invited = await orgWith(user.user.id, 'ADMIN', false);
  const browser = await signedIn(world, user);
  const form = page(await browser.open(`${CLIENTS}/new`));
  const options = ownerOptions(form.html);
  t.deepEqual(options[0], ['', 'Personal']);
  t.deepEqual(
    options
      .slice(1)
      .map(([value]) => Number(value))
      .sort(),
    [owned, administered].sort(),
  );
  for (const id of [membered, invited]) t.false(options.some(([value]) => value === String(id)));
  t.true(form.html.includes('<option value="" selected>Personal</option>'), 'personal by default');
});

test('create for an organization: stored with it, audited, shown as its client on the page and in the list', async (t) => {
  const knex = world.system.stores.db.knex;
  const user = await insertUser(world.knex());
  const org = await orgWith(user.user.id, 'ADMIN');
  const browser = await signedIn(world, user);
  const { clientId, secret, result } = await createThroughForm(browser, {
    name: 'Org Calendar',
    organizationId: String(org),
  });
  t.truthy(secret, 'the secret is shown once, as for a personal client');
  const client = await findOAuthClient(knex, clientId);
  t.is(client?.organizationId, org);
  t.is(client?.ownerUserId, user.user.id);
  t.is(client?.reviewStatus, 'PENDING');
  t.deepEqual(
    (await listAuditEntries(knex, 'oauth_client', clientId)).map((e) => e.action),
    ['oauth_client.created'],
  );
  const name = await orgName(org);
  t.true(text(result.html).includes(`Owner ${name} (organization)`));
  const personal = await createThroughForm(browser, { name: 'Own Calendar' });
  t.true(text(personal.result.html).includes('Owner Personal'));
  const list = text(page(await browser.open(CLIENTS)).html);
  t.regex(list, new RegExp(`Org Calendar ${clientId} In review ${name} `));
  t.regex(list, new RegExp(`Own Calendar ${personal.clientId} In review Personal `));
});

test('an organization the user may not use is refused next to the owner field; nothing is created', async (t) => {
  const knex = world.system.stores.db.knex;
  const user = await insertUser(world.knex());
  const stranger = await insertUser(world.knex());
  const cases: Array<[string, number, string]> = [
    [String(await orgWith(user.user.id, 'MEMBER')), 403, ORGANIZATION_FORBIDDEN],
    [String(await orgWith(user.user.id, 'OWNER', false)), 403, ORGANIZATION_FORBIDDEN],
    [String(await orgWith(stranger.user.id, 'OWNER')), 403, ORGANIZATION_FORBIDDEN],
    ['999999999', 404, 'Organization not found'],
    ['abc', 400, 'choose an owner from the list'],
    ['0', 400, 'choose an owner from the list'],
  ];
  const browser = await signedIn(world, user);
  const form = page(await browser.open(`${CLIENTS}/new`));
  for (const [organizationId, status, message] of cases) {
    const refused = page(
      await browser.submit(form, CLIENTS, validForm({ name: 'Not Mine', organizationId })),
    );
    t.is(refused.status, status, organizationId);
    t.is(fieldError(refused.html, 'organizationId'), message, organizationId);
    t.true(refused.html.includes('value="Not Mine"'), 'what was typed is kept');
  }
  // Other field errors are shown together with the owner's.
  const both = page(await browser.submit(form, CLIENTS, validForm({ name: ' ', organizationId: 'x' })));
  t.is(both.status, 400);
  t.truthy(fieldError(both.html, 'name'));
  t.truthy(fieldError(both.html, 'organizationId'));
  t.deepEqual(await listClientsVisibleTo(knex, user.user.id), []);
});

test("the list has the organizations' clients exactly as the API's list; MEMBERs get no edit, delete or secret buttons", async (t) => {
  const knex = world.system.stores.db.knex;
  const {
    orgId: org,
    users: { owner, member, admin, invited },
  } = await organizationScene(world);
  const { clientId } = await createThroughForm(await signedIn(world, owner), {
    name: 'Shared App',
    organizationId: String(org),
  });
  const memberBrowser = await signedIn(world, member);
  const own = await createThroughForm(memberBrowser, { name: 'Member Own App' });

  const listed = page(await memberBrowser.open(CLIENTS)).html;
  const shown = [...listed.matchAll(/class="client-row" href="[^"]*\/([^"/]+)"/g)].map((m) =>
    decodeURIComponent(m[1]!),
  );
  const api = (await listClientsVisibleTo(knex, member.user.id)).map((client) => client.id);
  t.deepEqual(shown, api, "the same clients in the same order as GET /v2/oauth-clients's query");
  t.deepEqual([...shown].sort(), [clientId, own.clientId].sort());
  t.true(text(listed).includes(await orgName(org)));

  const path = `${CLIENTS}/${clientId}`;
  const asMember = page(await memberBrowser.open(path));
  t.is(asMember.status, 200);
  t.true(text(asMember.html).includes(`Owner ${await orgName(org)} (organization)`));
  for (const action of [
    `${path}/edit`,
    `${path}/delete`,
    `${path}/secrets`,
    '/revoke"',
    'Generate new secret',
  ]) {
    t.false(asMember.html.includes(action), action);
  }
  t.true(text(asMember.html).includes('only its owner and the organization'));

  const asAdmin = page(await (await signedIn(world, admin)).open(path));
  for (const action of [`${path}/edit`, `${path}/delete`, `${path}/secrets`, '/revoke"']) {
    t.true(asAdmin.html.includes(action), action);
  }
  const invitedList = page(await (await signedIn(world, invited)).open(CLIENTS)).html;
  t.false(invitedList.includes(clientId), 'an unaccepted membership shows nothing');
});
