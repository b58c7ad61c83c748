import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { tempDir } from './process.ts';
import { later } from './read-through.ts';

/** Debian's Chromium (`apt-get install -y chromium`); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM_PATH);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium driven by playwright-core, with a fresh profile (user-data-dir) that is removed
 * on close, so no cookie or cache survives between test files.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await tempDir('sched-chromium-');
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile.path, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
    });
  } catch (error) {
    await profile.remove();
    throw error;
  }
  return {
    context,
    close: async () => {
      await context.close();
      await profile.remove();
    },
  };
}

/**
 * Headless Chromium driven by playwright-core, shared by a test file whose tests each open their
 * own context (`openPage`), so no cookie or cache survives between tests.
 */
export async function launchChromium(): Promise<Browser> {
  if (!chromiumAvailable())
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH`,
    );
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

/**
 * Chromium for the whole test file: launched in a serial `test.before` (a missing Chromium fails
 * the file, saying how to install it), closed in `test.after.always`. Returns the getter to call
 * in tests: `openPage(chromium(), viewport)`.
 */
export function setUpChromium<Context>(test: TestFn<Context>): () => Browser {
  const browser = later<Browser>('Chromium');
  test.serial.before(async () => {
    browser.set(await launchChromium());
  });
  test.after.always(async () => {
    await browser.peek()?.close();
  });
  return browser.get;
}

/**
 * Screenshots of a test file, outside git: `$TMPDIR/<folder>/<name>-light.png` and `-dark.png`,
 * the page in each color scheme (then back to the browser's own).
 */
export function screenshotsIn(folder: string): (page: Page, name: string) => Promise<void> {
  const dir = join(tmpdir(), folder);
  let made: Promise<unknown> | undefined;
  return async (page, name) => {
    made ??= mkdir(dir, { recursive: true });
    await made;
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: join(dir, `${name}-${colorScheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: null });
  };
}

/**
 * Opens `url` (absolute) signed out, signs in on the sign-in form it leads to, and waits until
 * the browser is back on `url`'s path.
 */
export async function signInAt(
  page: Page,
  url: string,
  user: { email: string; password: string },
  password = user.password,
): Promise<void> {
  const path = new URL(url).pathname;
  await page.goto(url);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((landed) => landed.pathname === path);
}

export interface OpenPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page (`pageerror: ...`) and, with `consoleErrors`, `console: ...` errors. */
  problems: string[];
}

/**
 * How long a Chromium call that has no timeout of its own may take (a kill deadline, under ava's
 * timeout, not a timing assertion). Playwright's actions and waits time out by themselves (30 s by
 * default); `evaluate` and `content` do not, so a page that never answers held the test until
 * ava's timeout, without saying where.
 */
export const CHROMIUM_DEADLINE_MS = 30_000;

/** `action` within `ms`, or a failure naming `what`. */
export async function inTime<T>(what: string, action: Promise<T>, ms = CHROMIUM_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([action, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Gives the page's `evaluate` and `content` the deadline (their results unchanged). */
const bounded = new WeakSet<Page>();

function withDeadlines(page: Page, ms: number): void {
  if (bounded.has(page)) return;
  bounded.add(page);
  const evaluate = page.evaluate.bind(page) as (fn: unknown, arg?: unknown) => Promise<unknown>;
  page.evaluate = ((fn: unknown, arg?: unknown) =>
    inTime('page.evaluate', evaluate(fn, arg), ms)) as unknown as Page['evaluate'];
  const content = page.content.bind(page);
  page.content = () => inTime('page.content', content(), ms);
}

/**
 * A fresh context on `browser` with one page of `viewport`, its problems collected. Its pages
 * (popups too) answer `evaluate` and `content` within `deadlineMs` or fail.
 */
export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number },
  options: { consoleErrors?: boolean; deadlineMs?: number } = {},
): Promise<OpenPage> {
  const context = await browser.newContext({ viewport });
  const deadlineMs = options.deadlineMs ?? CHROMIUM_DEADLINE_MS;
  context.on('page', (opened) => withDeadlines(opened, deadlineMs));
  const page = await context.newPage();
  withDeadlines(page, deadlineMs);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  if (options.consoleErrors) {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
  }
  return { context, page, problems };
}

/**
 * Clicks something that closes its own page (a popup that finishes the flow and closes itself)
 * and waits for the close. Playwright's click may reject with "Target page ... has been closed"
 * when the page goes away while it completes the click: here that is the expected outcome.
 */
export async function clickClosingItsPage(page: Page, target: Locator): Promise<void> {
  const closed = page.waitForEvent('close');
  await target.click().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (!page.isClosed() && !message.includes('has been closed')) throw error;
  });
  await closed;
}

/**
 * Presses `key` where the focus is, inside a frame whose page answers it by having the frame removed
 * (Escape in the embed's frame closes the dialog), and waits for `gone` to leave the page. The
 * press itself is not awaited: Chromium may never acknowledge a key event whose frame it removed
 * while delivering it, and `keyboard.press` has no timeout (a CI run once hung there for minutes).
 */
export async function pressRemovingItsFrame(page: Page, key: string, gone: Locator): Promise<void> {
  void page.keyboard.press(key).catch(() => {});
  await gone.waitFor({ state: 'detached' });
}

export type { Browser, BrowserContext, Page };
