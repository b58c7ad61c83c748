// The settings pages in tests: signing in, reading pages, submitting their forms.
import { FlowBrowser, formOf, type PageResult, type RedirectResult } from '../support/oauth.ts';
import type { TestUser } from '../support/factories.ts';
import { buildScene, type World } from '../support/world.ts';

export const CLIENTS = '/auth/settings/developer/oauth-clients';
export const ADMIN = '/auth/admin/oauth-clients';

/** An organization (and a team) with an accepted OWNER, MEMBER and ADMIN, and an ADMIN who has not accepted; they can sign in. */
export function organizationScene(world: World) {
  return buildScene(
    world.knex(),
    {
      owner: { org: 'OWNER' },
      member: { org: 'MEMBER' },
      admin: { org: 'ADMIN' },
      invited: { org: 'ADMIN', accepted: false },
    },
    { password: 'a long settings password' },
  );
}

export function page(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

/** A cookie-keeping HTTP browser signed in on the settings pages as `user`. */
export async function signedIn(world: World, user: TestUser): Promise<FlowBrowser> {
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
