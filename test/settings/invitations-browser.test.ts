import test from 'ava';
import { openPage, type Page, screenshotsIn, setUpChromium, signInAt } from '../support/browser.ts';
import { insertMembership, insertTeam, insertUser, type TestUser } from '../support/factories.ts';
import { waitForMail } from '../support/mail.ts';
import { setUpWorld } from '../support/world.ts';

// Real Chromium and real SMTP: an inviter invites through the API, the e-mail arrives at the SMTP
// server the system sends to, the invitee opens the e-mail's link, signs in, and answers on the
// settings page; the inviter's API read shows the result. Screenshots (outside git), light and
// dark: $TMPDIR/sched-invitation-screens/.

const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();
const chromium = setUpChromium(test);
const screenshots = screenshotsIn('sched-invitation-screens');

async function teamOf(owner: TestUser, name: string): Promise<number> {
  const created = await call('POST', '/v2/teams', { token: owner.apiKey, body: { name } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.data.id;
}

/** The invitation e-mail to `to` about `teamName`, and the link it carries. */
async function invitationLink(to: string, teamName: string): Promise<string> {
  const mail = await waitForMail(
    world,
    to,
    (m) => m.subject === `You are invited to join the team ${teamName}`,
  );
  const link = /https?:\/\/\S+?\/auth\/settings\/invitations\b/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no invitations link in:\n${mail.text}`);
  return link;
}

/** Opens the e-mail's link signed out: the sign-in page, then (after signing in) the invitations. */
async function openLinkAndSignIn(page: Page, link: string, user: TestUser): Promise<void> {
  await signInAt(page, link, user);
  await page.getByRole('heading', { name: /^Invitations/ }).waitFor();
}

test('invited by e-mail: the e-mail link, sign-in, Accept in Chromium; the inviter then sees the member with their profile', async (t) => {
  const inviter = await insertUser(knex(), { name: 'Iris Inviter' });
  const invitee = await insertUser(knex(), { name: 'Eve Emailed' });
  const team = await teamOf(inviter, 'Harbour Crew');
  const invited = await call('POST', `/v2/teams/${team}/memberships`, {
    token: inviter.apiKey,
    body: { email: invitee.email, role: 'ADMIN' },
  });
  t.is(invited.status, 201);
  const id: number = invited.body.data.id;
  t.like(invited.body.data, { accepted: false, user: { email: invitee.email, name: null } });

  const link = await invitationLink(invitee.email, 'Harbour Crew');
  t.is(new URL(link).origin, new URL(world.system.url).origin);
  const { context, page, problems } = await openPage(chromium(), { width: 1000, height: 800 });
  try {
    await openLinkAndSignIn(page, link, invitee);
    t.is(new URL(page.url()).pathname, '/auth/settings/invitations');
    const item = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Harbour Crew' }) });
    await item.waitFor();
    t.true(await item.getByText('Invited by Iris Inviter').isVisible());
    t.true(await item.getByText('Admin', { exact: true }).isVisible());
    t.is(await page.getByRole('link', { name: 'Invitations' }).getAttribute('aria-current'), 'page');
    await screenshots(page, 'list');

    await item.getByRole('button', { name: 'Accept' }).click();
    await page.getByText('Invitation accepted.').waitFor();
    t.true(await page.getByText('No pending invitations.').isVisible());
    await screenshots(page, 'accepted');
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }

  const members = await call('GET', `/v2/teams/${team}/memberships`, { token: inviter.apiKey });
  t.is(members.status, 200);
  t.like(
    members.body.data.find((m: { id: number }) => m.id === id),
    {
      userId: invitee.id,
      accepted: true,
      role: 'ADMIN',
      user: { email: invitee.email, name: 'Eve Emailed' },
    },
  );
  t.deepEqual((await call('GET', '/v2/me/invitations', { token: invitee.apiKey })).body.data, []);
});

test('invited by id: the e-mail link, sign-in, Decline in Chromium; the membership is gone', async (t) => {
  const inviter = await insertUser(knex(), { name: 'Ida Identified' });
  const invitee = await insertUser(knex(), { name: 'Dean Declines' });
  const shared = await insertTeam(knex(), null);
  await insertMembership(knex(), { userId: inviter.id, teamId: shared, role: 'MEMBER' });
  await insertMembership(knex(), { userId: invitee.id, teamId: shared, role: 'MEMBER' });
  const team = await teamOf(inviter, 'Lighthouse Team');
  const invited = await call('POST', `/v2/teams/${team}/memberships`, {
    token: inviter.apiKey,
    body: { userId: invitee.id, role: 'MEMBER' },
  });
  t.is(invited.status, 201);
  const id: number = invited.body.data.id;

  const link = await invitationLink(invitee.email, 'Lighthouse Team');
  const { context, page, problems } = await openPage(chromium(), { width: 420, height: 800 });
  try {
    await openLinkAndSignIn(page, link, invitee);
    const item = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Lighthouse Team' }) });
    t.true(await item.getByText('Invited by Ida Identified').isVisible());
    await screenshots(page, 'narrow');
    await item.getByRole('button', { name: 'Decline' }).click();
    await page.getByText('Invitation declined.').waitFor();
    t.is(await page.getByRole('heading', { name: 'Lighthouse Team' }).count(), 0);
    t.deepEqual(problems, []);
  } finally {
    await context.close();
  }

  t.is((await call('GET', `/v2/teams/${team}/memberships/${id}`, { token: inviter.apiKey })).status, 404);
  const members = await call('GET', `/v2/teams/${team}/memberships`, { token: inviter.apiKey });
  t.false(members.body.data.some((m: { id: number }) => m.id === id));
  t.deepEqual((await call('GET', '/v2/me/invitations', { token: invitee.apiKey })).body.data, []);
});
