import { setServiceAdmin } from '@sched/db/queries/users';
import test from 'ava';
import { insertMemberships, insertOrganization } from '../api/helpers/fixtures.ts';
import {
  createTestUser,
  FlowBrowser,
  formOf,
  type PageResult,
  type RedirectResult,
  type TestUser,
} from '../support/oauth.ts';
import { setUpSmtpServer, startSmtpServer } from '../support/smtp.ts';
import { setUpTestSystem, startTestSystem, type TestSystem } from '../support/system.ts';

export const CLIENTS = '/auth/settings/developer/oauth-clients';
export const ADMIN = '/auth/admin/oauth-clients';

export interface SettingsWorld {
  system: TestSystem;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  close(): Promise<void>;
}

/** The whole system sending mail to a real local SMTP server. */
export async function startSettingsWorld(): Promise<SettingsWorld> {
  const smtp = await startSmtpServer();
  const system = await startTestSystem({ SMTP_URL: smtp.url });
  return {
    system,
    smtp,
    close: async () => {
      await system.close();
      await smtp.close();
    },
  };
}

/**
 * One world per test file: started before its tests, closed after them (also when they fail).
 * Returned at once, usable inside the tests; reading it outside a test throws.
 */
export function worldForThisFile(): SettingsWorld {
  const smtp = setUpSmtpServer(test);
  const system = setUpTestSystem(test, () => ({ SMTP_URL: smtp.url }));
  return {
    system,
    smtp,
    close: async () => {
      await system.close();
      await smtp.close();
    },
  };
}

export async function newUser(
  world: SettingsWorld,
  options: { admin?: boolean; name?: string } = {},
): Promise<TestUser> {
  const user = await createTestUser(world.system.stores.db.knex, options.name ? { name: options.name } : {});
  if (options.admin) await setServiceAdmin(world.system.stores.db.knex, user.user.id);
  return user;
}

/** An organization with an accepted OWNER, MEMBER and ADMIN, and an ADMIN who has not accepted. */
export async function organizationScene(world: SettingsWorld) {
  const knex = world.system.stores.db.knex;
  const organizationId = await insertOrganization(knex);
  const people = {
    owner: await newUser(world),
    member: await newUser(world),
    admin: await newUser(world),
    invited: await newUser(world),
  };
  await insertMemberships(knex, [
    { userId: people.owner.user.id, organizationId, role: 'OWNER' },
    { userId: people.member.user.id, organizationId, role: 'MEMBER' },
    { userId: people.admin.user.id, organizationId, role: 'ADMIN' },
    { userId: people.invited.user.id, organizationId, role: 'ADMIN', accepted: false },
  ]);
  return { organizationId, ...people };
}

export function page(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

/** A cookie-keeping HTTP browser signed in on the settings pages as `user`. */
export async function signedIn(world: SettingsWorld, user: TestUser): Promise<FlowBrowser> {
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open('/auth/settings'));
  if (!form.url.pathname.endsWith('/sign-in')) throw new Error(`not the sign-in page: ${form.url.href}`);
  const account = page(
    await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password }),
  );
  if (account.status !== 200 || account.url.pathname !== '/auth/settings')
    throw new Error(`sign-in failed: ${account.status} ${account.url.href}\n${account.html}`);
  return browser;
}

export const validForm = (overrides: Record<string, string> = {}) => ({
  name: 'Calendar Sync',
  redirectUris: 'https://app.example.com/callback',
  'scope.BOOKING_READ': 'on',
  'scope.PROFILE_READ': 'on',
  clientType: 'confidential',
  websiteUrl: 'https://app.example.com',
  logo: '',
  purpose: 'Syncs bookings into a calendar',
  ...overrides,
});

/** Creates a client through the create form; returns its id, the plain secret shown once and the result page. */
export async function createThroughForm(
  browser: FlowBrowser,
  overrides: Record<string, string> = {},
): Promise<{ clientId: string; secret: string | null; result: PageResult }> {
  const form = page(await browser.open(`${CLIENTS}/new`));
  const result = page(await browser.submit(form, CLIENTS, validForm(overrides)));
  if (result.status !== 200) throw new Error(`create failed: ${result.status}\n${result.html}`);
  const clientId = decodeURIComponent(result.url.pathname.split('/').pop() ?? '');
  const secret = /id="new-secret"[^>]*value="([^"]+)"/.exec(result.html)?.[1] ?? null;
  return { clientId, secret, result };
}

/** POSTs a form of `current` (found by action suffix) and returns the next page. */
export async function post(
  browser: FlowBrowser,
  current: PageResult,
  actionSuffix: string,
  fields: Record<string, string> = {},
) {
  if (!formOf(current.html, actionSuffix)) throw new Error(`no form ${actionSuffix} on ${current.url.href}`);
  return page(await browser.submit(current, actionSuffix, fields));
}

/** Text of the page without tags (for "is this message shown" checks). */
export const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

/** A raw POST with the browser's cookies (for CSRF refusals). */
export async function rawPost(browser: FlowBrowser, path: string, fields: Record<string, string>) {
  const response = await browser.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}
