import test from 'ava';
import { openPage, setUpChromium } from '../support/browser.ts';
import { insertUser, uniqueTag } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { linkInMail, nextMail, RESET_SUBJECT, VERIFY_SUBJECT } from './accounts.ts';

// Real Chromium and real SMTP (the world's server): sign up from the settings sign-in page, verify
// from the e-mail, ask for a new link on the profile page (the older one then says how to get a
// new one), and "Forgot password?" to a new password from the e-mail's link.

const world = setUpWorld(test);
const chromium = setUpChromium(test);

test('sign up from settings, verify from the e-mail, resend from the profile page', async (t) => {
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    const email = `chromium-${uniqueTag()}@example.com`;
    await page.goto(`${world.system.url}/auth/settings`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Create account' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Chromium Person');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Username', { exact: true }).fill(`c${uniqueTag()}`.slice(0, 30));
    await page.getByLabel('Password', { exact: true }).fill('a long chromium password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    t.true((await page.textContent('body'))?.includes('Not verified'));

    const first = linkInMail(await nextMail(world, email, VERIFY_SUBJECT), '/auth/verify-email');
    // A new link from the profile page voids the first.
    await page.goto(`${world.system.url}/auth/settings/profile`);
    await page.getByRole('button', { name: 'Resend verification e-mail' }).click();
    const second = linkInMail(await nextMail(world, email, VERIFY_SUBJECT, 1), '/auth/verify-email');
    t.not(first, second);

    await page.goto(first);
    await page.getByRole('heading', { name: 'Link not valid' }).waitFor();
    await page.getByRole('link', { name: 'open your profile page' }).click();
    await page.waitForURL(/\/auth\/settings\/profile$/);

    await page.goto(second);
    await page.getByRole('heading', { name: 'Email verified' }).waitFor();
    await page.goto(`${world.system.url}/auth/settings`);
    t.true((await page.textContent('body'))?.includes('Verified'));
    t.false((await page.textContent('body'))?.includes('Not verified'));
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('forgot password: the link of the e-mail sets a new password', async (t) => {
  const user = await insertUser(world.knex(), { name: 'Forgetful Fran' });
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    await page.goto(`${world.system.url}/auth/settings/sign-in`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Forgot password?' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();

    const link = linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('fran has a new password');
    await page.getByLabel('Repeat new password').fill('fran has a new password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill('fran has a new password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    t.true((await page.textContent('body'))?.includes('Forgetful Fran'));
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
