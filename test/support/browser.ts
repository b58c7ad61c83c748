import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { tempDir } from './process.ts';

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

export type { Browser, BrowserContext };
