import { PATHS } from '@sched/auth/paths';
import { INVITATIONS_PAGE_PATH } from '@sched/memberships/invitation-mail';
import test from 'ava';
import {
  insertMembership,
  insertOrganization,
  insertTeam,
  insertUser,
  type TestUser,
} from '../support/factories.ts';
import { FlowBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, post, rawPost, signedIn, text } from './helpers.ts';

// The invitee's invitations in the settings pages (`accepted` is changed only by the invitee, in
// the settings pages as in the API; "Invitations sent to an e-mail address are visible only to an
// account whose address is verified"), over HTTP with the cookie-keeping FlowBrowser. The
// invitations are made through the API as an inviter would; the API's view is checked after each
// answer. The Chromium round trip with the e-mail is invitations-browser.test.ts.

const INVITATIONS = '/auth/settings/invitations';
const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();

/** A standalone team whose OWNER is `owner`, made through the API. */
async function teamOf(owner: TestUser, name: string): Promise<number> {
  const created = await call('POST', '/v2/teams', { token: owner.apiKey, body: { name } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.data.id;
}

/** An invitation through the API (by e-mail or by id); returns the membership id. */
async function invite(
  inviter: TestUser,
  path: string,
  body: { email: string; role: string } | { userId: number; role: string },
): Promise<number> {
  const invited = await call('POST', path, { token: inviter.apiKey, body });
  if (invited.status !== 201) throw new Error(`${invited.status} ${JSON.stringify(invited.body)}`);
  return invited.body.data.id;
}

/** Two users who share an accepted membership of a standalone team (they may invite each other by id). */
async function acquaintances(inviterName: string, inviteeName: string) {
  const inviter = await insertUser(knex(), { name: inviterName });
  const invitee = await insertUser(knex(), { name: inviteeName });
  const shared = await insertTeam(knex(), null);
  await insertMembership(knex(), { userId: inviter.id, teamId: shared, role: 'MEMBER' });
  await insertMembership(knex(), { userId: invitee.id, teamId: shared, role: 'MEMBER' });
  return { inviter, invitee };
}

const myInvitationIds = async (user: TestUser): Promise<number[]> => {
  const mine = await call('GET', '/v2/me/invitations', { token: user.apiKey });
  if (mine.status !== 200) throw new Error(JSON.stringify(mine.body));
  return mine.body.data.map((invitation: { id: number }) => invitation.id);
};

const membershipOf = (inviter: TestUser, teamId: number, membershipId: number) =>
  call('GET', `/v2/teams/${teamId}/memberships/${membershipId}`, { token: inviter.apiKey });

/** The <li> of the invitation whose heading names `name` (its text), or null. */
const itemText = (html: string, name: string): string | null => {
  for (const match of html.matchAll(/<li class="invitation">([\s\S]*?)<\/li>/g)) {
    if (text(match[1]!).includes(name)) return text(match[1]!);
  }
  return null;
};

test('the invitation e-mail links to this page', (t) => {
  t.is(INVITATIONS_PAGE_PATH, INVITATIONS);
  t.is(PATHS.settingsInvitations, INVITATIONS);
});

test('the list shows an invitation by id and an e-mail invitation to the verified address, each with Accept and Decline', async (t) => {
  const { inviter, invitee } = await acquaintances('Ingrid Inviter', 'Ivan Invitee');
  const byId = await teamOf(inviter, 'Design Crew');
  const byIdMembership = await invite(inviter, `/v2/teams/${byId}/memberships`, {
    userId: invitee.id,
    role: 'ADMIN',
  });
  const other = await insertUser(knex(), { name: 'Olga Owner' });
  const byEmail = await teamOf(other, 'Support Desk');
  const byEmailMembership = await invite(other, `/v2/teams/${byEmail}/memberships`, {
    email: invitee.email.toUpperCase(),
    role: 'MEMBER',
  });

  const browser = await signedIn(world, invitee);
  const list = page(await browser.open(INVITATIONS));
  t.is(list.status, 200);
  t.regex(list.html, /<h1>Invitations <span class="count-badge">2<\/span><\/h1>/);
  const design = itemText(list.html, 'Design Crew');
  const support = itemText(list.html, 'Support Desk');
  t.truthy(design);
  t.truthy(support);
  t.regex(design!, /Team .*Role: Admin .*Invited by Ingrid Inviter/);
  t.regex(support!, /Team .*Role: Member .*Invited by Olga Owner/);
  for (const id of [byIdMembership, byEmailMembership]) {
    t.regex(list.html, new RegExp(`action="${INVITATIONS}/${id}/accept"`));
    t.regex(list.html, new RegExp(`action="${INVITATIONS}/${id}/decline"`));
  }
  t.regex(
    list.html,
    /<button type="submit" class="primary small" aria-describedby="invitation-\d+">Accept<\/button>/,
  );
  t.false(text(list.html).includes('once it is verified'), 'no notice for a verified address');
  // The tab is in the settings navigation, current here and a plain link elsewhere.
  t.regex(
    list.html,
    /<a href="\/auth\/settings\/invitations" class="current" aria-current="page">Invitations<\/a>/,
  );
  const account = page(await browser.open('/auth/settings'));
  t.regex(account.html, /<a href="\/auth\/settings\/invitations">Invitations<\/a>/);
  // The same invitations as the API's list.
  t.deepEqual((await myInvitationIds(invitee)).sort(), [byIdMembership, byEmailMembership].sort());
});

test('an e-mail invitation to an unverified address does not show; the page says why; it shows once verified', async (t) => {
  const inviter = await insertUser(knex(), { name: 'Vera Verifier' });
  const team = await teamOf(inviter, 'Night Shift');
  const invitee = await insertUser(knex(), { name: 'Not Yet Verified' });
  await knex()('users').where({ id: invitee.id }).update({ email_verified_at: null });
  const id = await invite(inviter, `/v2/teams/${team}/memberships`, { email: invitee.email, role: 'MEMBER' });

  const browser = await signedIn(world, invitee);
  const list = page(await browser.open(INVITATIONS));
  t.is(list.status, 200);
  t.false(list.html.includes('Night Shift'));
  t.false(list.html.includes(`${INVITATIONS}/${id}/`));
  t.true(text(list.html).includes('No pending invitations.'));
  t.true(
    text(list.html).includes(
      `Invitations sent to your e-mail address ${invitee.email} appear here once it is verified.`,
    ),
  );
  // Answering it by hand is "not found", and nothing changes.
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)?.[1] ?? '';
  t.truthy(csrf);
  const forced = await rawPost(browser, `${INVITATIONS}/${id}/accept`, { _csrf: csrf });
  t.is(forced.status, 404);
  t.true(text(forced.html).includes('Invitation not found'));
  t.like((await membershipOf(inviter, team, id)).body.data, { accepted: false });

  await knex()('users').where({ id: invitee.id }).update({ email_verified_at: new Date() });
  const verified = page(await browser.open(INVITATIONS));
  t.true(verified.html.includes('Night Shift'));
  t.false(text(verified.html).includes('once it is verified'));
});

test('Accept: 303 back to the list with a fixed notice; the API shows the invitee accepted with their profile', async (t) => {
  const inviter = await insertUser(knex(), { name: 'Anna Accepter' });
  const team = await teamOf(inviter, 'Front Office');
  const invitee = await insertUser(knex(), { name: 'Paul Profile' });
  const id = await invite(inviter, `/v2/teams/${team}/memberships`, { email: invitee.email, role: 'MEMBER' });
  const before = await membershipOf(inviter, team, id);
  t.like(before.body.data, { accepted: false, user: { name: null } });

  const browser = await signedIn(world, invitee);
  const list = page(await browser.open(INVITATIONS));
  const form = /<form method="post" action="([^"]+\/accept)">/.exec(list.html)?.[1];
  t.is(form, `${INVITATIONS}/${id}/accept`);
  const response = await browser.request(form!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(list.html)![1]! }),
  });
  t.is(response.status, 303);
  t.is(response.headers.get('location'), `${INVITATIONS}?notice=accepted`);
  const after = page(await browser.open(response.headers.get('location')!));
  t.true(text(after.html).includes('Invitation accepted. You are now a member'));
  t.regex(after.html, /role="status"/);
  t.true(text(after.html).includes('No pending invitations.'));

  t.deepEqual(await myInvitationIds(invitee), []);
  const members = await call('GET', `/v2/teams/${team}/memberships`, { token: inviter.apiKey });
  const row = members.body.data.find((m: { id: number }) => m.id === id);
  t.like(row, { userId: invitee.id, accepted: true, user: { email: invitee.email, name: 'Paul Profile' } });
});

test('Decline: the membership is gone for the API too', async (t) => {
  const { inviter, invitee } = await acquaintances('Dora Decliner', 'Dan Declines');
  const team = await teamOf(inviter, 'Back Office');
  const id = await invite(inviter, `/v2/teams/${team}/memberships`, { userId: invitee.id, role: 'MEMBER' });
  const browser = await signedIn(world, invitee);
  const list = page(await browser.open(INVITATIONS));
  const after = await post(browser, list, `/${id}/decline`);
  t.is(after.status, 200);
  t.is(after.url.pathname + after.url.search, `${INVITATIONS}?notice=declined`);
  t.true(text(after.html).includes('Invitation declined.'));
  t.false(after.html.includes('Back Office'));
  t.deepEqual(await myInvitationIds(invitee), []);
  t.is((await membershipOf(inviter, team, id)).status, 404);
  const members = await call('GET', `/v2/teams/${team}/memberships`, { token: inviter.apiKey });
  t.false(members.body.data.some((m: { id: number }) => m.id === id));
});

test("someone else's invitation id: an error on the page (404), nothing changes", async (t) => {
  const inviter = await insertUser(knex(), { name: 'Sam Sender' });
  const team = await teamOf(inviter, 'Private Team');
  const target = await insertUser(knex());
  const id = await invite(inviter, `/v2/teams/${team}/memberships`, { email: target.email, role: 'ADMIN' });
  const intruder = await insertUser(knex());
  const browser = await signedIn(world, intruder);
  const list = page(await browser.open(INVITATIONS));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(list.html)![1]!;
  for (const answer of ['accept', 'decline']) {
    const refused = await rawPost(browser, `${INVITATIONS}/${id}/${answer}`, { _csrf: csrf });
    t.is(refused.status, 404, answer);
    t.true(text(refused.html).includes('Invitation not found'), answer);
    t.regex(refused.html, /<h1>Invitations/);
    t.false(refused.html.includes('Private Team'), 'nothing about the invitation leaks');
  }
  // Not an id at all: the same.
  const nonsense = await rawPost(browser, `${INVITATIONS}/abc/accept`, { _csrf: csrf });
  t.is(nonsense.status, 404);
  t.true(text(nonsense.html).includes('Invitation not found'));
  t.like((await membershipOf(inviter, team, id)).body.data, { accepted: false });
  t.deepEqual(await myInvitationIds(target), [id]);
});

test('a team of an organization before the organization: 409 with its message on the page; accepted after the organization', async (t) => {
  const invitee = await insertUser(knex(), { name: 'Olivia Order' });
  const orgId = await insertOrganization(knex(), { name: 'Acme Corp' });
  const teamId = await insertTeam(knex(), orgId, { name: 'Acme Sales' });
  const orgMembership = await insertMembership(knex(), {
    userId: invitee.id,
    organizationId: orgId,
    role: 'MEMBER',
    accepted: false,
  });
  const teamMembership = await insertMembership(knex(), {
    userId: invitee.id,
    teamId,
    role: 'MEMBER',
    accepted: false,
  });
  const browser = await signedIn(world, invitee);
  const list = page(await browser.open(INVITATIONS));
  t.true(
    text(itemText(list.html, 'Acme Sales') ?? '').includes(
      'belongs to the organization Acme Corp: accept that invitation first',
    ),
  );
  const early = await post(browser, list, `/${teamMembership}/accept`);
  t.is(early.status, 409);
  t.true(text(early.html).includes('Accept the invitation to the organization first'));
  t.regex(early.html, /role="alert"/);
  t.deepEqual((await myInvitationIds(invitee)).sort(), [orgMembership, teamMembership].sort());

  const joined = await post(browser, early, `/${orgMembership}/accept`);
  t.is(joined.status, 200);
  const team = await post(browser, joined, `/${teamMembership}/accept`);
  t.is(team.status, 200);
  t.true(text(team.html).includes('Invitation accepted.'));
  t.deepEqual(await myInvitationIds(invitee), []);
});

test('CSRF: a missing token, or one issued to another account, is refused and nothing changes', async (t) => {
  const { inviter, invitee } = await acquaintances('Cora Csrf', 'Carl Csrf');
  const team = await teamOf(inviter, 'Forgery Target');
  const id = await invite(inviter, `/v2/teams/${team}/memberships`, { userId: invitee.id, role: 'MEMBER' });
  const browser = await signedIn(world, invitee);
  await browser.open(INVITATIONS);
  const missing = await rawPost(browser, `${INVITATIONS}/${id}/accept`, {});
  t.is(missing.status, 403);
  const someoneElse = await signedIn(world, inviter);
  const theirs = page(await someoneElse.open(INVITATIONS));
  const foreign = /name="_csrf" value="([^"]+)"/.exec(theirs.html)![1]!;
  const forged = await rawPost(browser, `${INVITATIONS}/${id}/decline`, { _csrf: foreign });
  t.is(forged.status, 403);
  t.like((await membershipOf(inviter, team, id)).body.data, { accepted: false });
  t.deepEqual(await myInvitationIds(invitee), [id]);
});

test('signed out: the page sends to the sign-in page and back to the invitations; an answer comes back to the list', async (t) => {
  const { inviter, invitee } = await acquaintances('Rita Return', 'Rob Return');
  const team = await teamOf(inviter, 'Return Trip');
  const id = await invite(inviter, `/v2/teams/${team}/memberships`, { userId: invitee.id, role: 'MEMBER' });
  const browser = new FlowBrowser(world.system.url);
  const signIn = page(await browser.open(INVITATIONS));
  t.is(signIn.url.pathname, '/auth/settings/sign-in');
  t.is(signIn.url.searchParams.get('return'), INVITATIONS);
  const list = page(
    await browser.submit(signIn, '/auth/settings/sign-in', {
      email: invitee.email,
      password: invitee.password,
    }),
  );
  t.is(list.url.pathname, INVITATIONS);
  t.true(list.html.includes('Return Trip'));

  // A signed-out answer (an old tab after signing out) goes to sign in, then to the list, not to the answer's path.
  const stranger = new FlowBrowser(world.system.url);
  const response = await stranger.request(`${INVITATIONS}/${id}/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: 'x' }),
  });
  t.is(response.status, 303);
  t.is(response.headers.get('location'), `/auth/settings/sign-in?return=${encodeURIComponent(INVITATIONS)}`);
  t.deepEqual(await myInvitationIds(invitee), [id]);
});

test('the notice is a fixed text chosen by a code; anything else in the query shows nothing', async (t) => {
  const user = await insertUser(knex());
  const browser = await signedIn(world, user);
  const accepted = page(await browser.open(`${INVITATIONS}?notice=accepted`));
  t.true(text(accepted.html).includes('Invitation accepted.'));
  for (const notice of ['<script>alert(1)</script>', 'toString', '__proto__', 'hasOwnProperty']) {
    const shown = page(await browser.open(`${INVITATIONS}?notice=${encodeURIComponent(notice)}`));
    t.is(shown.status, 200, notice);
    t.false(shown.html.includes('role="status"'), notice);
    t.false(shown.html.includes('<script>'), notice);
  }
});
