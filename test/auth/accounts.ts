// Helpers of the account tests (sign-up outside an authorization, verification, password reset):
// reading pages, following their links, the links of the e-mails.
import { decodeQuotedPrintable, type Mail, parseMail, waitForMail } from '../support/mail.ts';
import { FlowBrowser, type PageResult, type RedirectResult } from '../support/oauth.ts';
import type { World } from '../support/world.ts';

export function page(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

/** Text of the page without tags. */
export const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

/** The href of the link whose text is exactly `label` (undefined when the page has none). */
export function linkHref(html: string, label: string): string | undefined {
  for (const match of html.matchAll(/<a\s[^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g)) {
    if (match[2]!.trim() === label) return match[1]!.replace(/&amp;/g, '&');
  }
  return undefined;
}

/** Opens the link labelled `label` on `current`. */
export async function follow(browser: FlowBrowser, current: PageResult, label: string) {
  const href = linkHref(current.html, label);
  if (!href) throw new Error(`no link "${label}" on ${current.url.href}:\n${current.html}`);
  return page(await browser.open(new URL(href, current.url)));
}

/** The first link to `path` in the mail (quoted-printable undone). */
export function linkInMail(mail: Mail, path: string): string {
  const escaped = path.replace(/[/.]/g, '\\$&');
  const link = decodeQuotedPrintable(mail.raw).match(
    new RegExp(`https?://[^\\s"<]+${escaped}\\?token=[A-Za-z0-9_-]+`),
  )?.[0];
  if (!link) throw new Error(`no ${path} link in:\n${mail.raw}`);
  return link;
}

export const RESET_SUBJECT = 'Reset your password';
export const VERIFY_SUBJECT = 'Verify your email address';

/** Waits for the newest mail to `to` with `subject` after `after` messages to that address. */
export async function nextMail(world: World<string>, to: string, subject: string, after = 0): Promise<Mail> {
  let seen = 0;
  return waitForMail(world, to, (mail) => mail.subject === subject && seen++ >= after);
}

/** Counts the mails to `to` with `subject` received so far. */
export const mailCount = (world: World<string>, to: string, subject: string): number =>
  world.smtp.received.filter(
    (m) => m.to.some((r) => r.toLowerCase() === to.toLowerCase()) && parseMail(m.raw).subject === subject,
  ).length;

/** Signs up through the settings sign-in page's "Create account"; returns the signed-in browser. */
export async function signUpFromSettings(
  world: World<string>,
  fields: { name?: string; email: string; username: string; password: string },
): Promise<{ browser: FlowBrowser; landed: PageResult }> {
  const browser = new FlowBrowser(world.system.url);
  const signIn = page(await browser.open('/auth/settings/sign-in'));
  const form = await follow(browser, signIn, 'Create account');
  const landed = page(
    await browser.submit(form, '/auth/settings/sign-up', { name: 'New Person', ...fields }),
  );
  if (landed.status !== 200) throw new Error(`sign-up failed: ${landed.status}\n${landed.html}`);
  return { browser, landed };
}

/** Signs in on the settings sign-in page; returns the browser and the page it landed on. */
export async function signInToSettings(world: World<string>, email: string, password: string) {
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open('/auth/settings/sign-in'));
  const landed = page(await browser.submit(form, '/auth/settings/sign-in', { email, password }));
  return { browser, landed };
}

/** Asks for a reset link on the "Forgot password?" page (reached from the settings sign-in page). */
export async function askForReset(world: World<string>, email: string) {
  const browser = new FlowBrowser(world.system.url);
  const signIn = page(await browser.open('/auth/settings/sign-in'));
  const form = await follow(browser, signIn, 'Forgot password?');
  return page(await browser.submit(form, '/auth/forgot-password', { email }));
}

/** Opens a reset link and submits the new password twice (or `confirm`). */
export async function completeReset(
  world: World<string>,
  link: string,
  password: string,
  confirm = password,
) {
  const browser = new FlowBrowser(world.system.url);
  const form = page(await browser.open(link));
  if (form.status !== 200) return form;
  return page(await browser.submit(form, '/auth/reset-password', { password, confirm }));
}
