import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { type Browser, chromiumAvailable, launchChromium, openPage, type Page } from '../support/browser.ts';
import { insertClient, insertUser, type TestUser } from '../support/factories.ts';
import { issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Real Chromium on the admin console: find a user, disable and enable them; suspend a client;
// the audit log shows both. Create an organization, switch PBAC, add a member; register a resource
// server, introspect with its secret, delete it. Screenshots (outside git), light and dark:
// $TMPDIR/sched-admin-console-screens/.

const world = setUpWorld(test, { clients: { app: { scopes: ['PROFILE_READ'] } } });
const screens = join(tmpdir(), 'sched-admin-console-screens');

let chromium: Browser;
test.before(async () => {
  if (!chromiumAvailable()) throw new Error('Chromium is missing: apt-get install -y chromium');
  chromium = await launchChromium();
  await mkdir(screens, { recursive: true });
});
test.after.always(async () => {
  await chromium?.close();
});

async function screenshots(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: join(screens, `${name}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: null });
}

async function signIn(page: Page, user: TestUser, path: string): Promise<void> {
  await page.goto(new URL(path, world.system.url).href);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === path);
}

test('an administrator finds a user, disables and enables them, suspends a client and reads the audit log', async (t) => {
  const tag = Date.now().toString(36);
  const target = await insertUser(world.knex(), { name: `Browser Target ${tag}` });
  const app = await insertClient(world.knex(), { name: `Browser App ${tag}` });
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const { context, page, problems } = await openPage(chromium, { width: 1000, height: 900 });
  try {
    await signIn(page, admin, '/auth/admin/users');
    await page.getByLabel('E-mail or name').fill(`browser target ${tag}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: target.email }).click();
    await page.getByRole('heading', { name: `Browser Target ${tag}` }).waitFor();
    await screenshots(page, 'user');
    await page.getByRole('button', { name: 'Disable account' }).click();
    await page.getByText('Account disabled.').waitFor();
    t.is((await world.call('GET', '/v2/me', { token: target.apiKey })).status, 401);
    await page.getByRole('button', { name: 'Enable account' }).click();
    await page.getByText('Account enabled.').waitFor();

    await page.getByRole('link', { name: 'All clients' }).click();
    await page.getByLabel('Review status').selectOption('APPROVED');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('status') === 'APPROVED');
    await page.goto(new URL(`/auth/admin/clients/${app.client.id}`, world.system.url).href);
    await page.getByLabel('Reason for suspending').fill('Reported by users');
    await screenshots(page, 'client');
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.getByText('Client suspended.').waitFor();
    t.is((await findOAuthClient(world.knex(), app.client.id))?.reviewStatus, 'PENDING');

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel('Actor user id').fill(String(admin.id));
    await page.getByRole('button', { name: 'Filter' }).click();
    for (const action of ['user.disabled', 'user.enabled', 'oauth_client.suspended'])
      t.true(await page.getByRole('cell', { name: action, exact: true }).isVisible(), action);
    await screenshots(page, 'audit');
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('an administrator creates an organization, turns PBAC on, adds a member, and registers a resource server whose secret introspects until it is deleted', async (t) => {
  const tag = Date.now().toString(36);
  const owner = await insertUser(world.knex());
  const member = await insertUser(world.knex());
  const admin = await insertUser(world.knex(), { serviceAdmin: true });
  const tokens = await issueTokens(world.system.url, world.clients.app, await insertUser(world.knex()));
  const { context, page, problems } = await openPage(chromium, { width: 1000, height: 900 });
  try {
    await signIn(page, admin, '/auth/admin/organizations');
    await page.getByRole('link', { name: 'New organization' }).click();
    await page.getByLabel('Name').fill(`Browser Org ${tag}`);
    await page.getByLabel('Slug').fill(`browser-org-${tag}`);
    await page.getByLabel('Owner’s e-mail').fill(owner.email);
    await screenshots(page, 'organization-new');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByText('Organization created.').waitFor();
    await page.getByRole('button', { name: 'Turn PBAC on' }).click();
    await page.getByText('PBAC turned on.').waitFor();
    await page.getByLabel('E-mail', { exact: true }).fill(member.email);
    await page.getByLabel('Role').selectOption('ADMIN');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText('Member added (accepted).').waitFor();
    t.true(await page.getByRole('cell', { name: member.email, exact: true }).isVisible());
    await screenshots(page, 'organization');
    const orgId = Number(/\/organizations\/(\d+)/.exec(page.url())?.[1]);
    const organization = await world.knex()('organizations').where({ id: orgId }).first();
    t.true(organization.pbac_enabled);

    await page.getByRole('link', { name: 'Resource servers' }).click();
    await page.getByLabel('Name').fill(`Browser RS ${tag}`);
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = await page.locator('#new-secret').inputValue();
    await screenshots(page, 'resource-server');
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const introspect = () =>
      tokenRequest(
        world.system.url,
        { token: tokens.access_token },
        { path: '/v2/auth/oauth2/introspect', basic: { clientId: id, secret } },
      );
    const active = await introspect();
    t.is(active.status, 200);
    t.is(active.body.active, true);
    await page.getByRole('button', { name: 'Delete resource server' }).click();
    await page.getByText('Resource server deleted.').waitFor();
    const refused = await introspect();
    t.is(refused.status, 401);
    t.is(refused.body.error, 'invalid_client');
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
