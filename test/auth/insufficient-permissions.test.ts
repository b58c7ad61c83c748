import { deleteMembership } from '@sched/db/queries/membership-changes';
import { createMembership, findMembershipOfUser } from '@sched/db/queries/memberships';
import { createOrganization } from '@sched/db/queries/organizations';
import { createTeam } from '@sched/db/queries/teams';
import { INSUFFICIENT_PERMISSIONS_DESCRIPTION } from '@sched/policy/authorization-scopes';
import test from 'ava';
import { authorizeInBrowser, authorizeUrl, FlowBrowser } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertUser, type TestUser } from '../support/factories.ts';

// A user with insufficient permissions for the scopes is redirected back with an error. A user can
// grant ORG_ scopes only with an organization membership, TEAM_ scopes only with a team membership
// or an organization ADMIN/OWNER role (services/auth/README.md).

const {
  system,
  clients: { client },
} = setUpWorld(test, {
  clients: {
    client: { scopes: ['PROFILE_READ', 'TEAM_BOOKING_READ', 'ORG_MEMBERSHIP_READ'] },
  },
});
const knex = () => system.stores.db.knex;
let sequence = 0;

const authorize = (user: TestUser, scope: string, browser?: FlowBrowser) =>
  authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope,
      state: 'st',
    }),
    { user, ...(browser ? { browser } : {}) },
  );

const slug = () => `perm-${Date.now()}-${++sequence}`;

function assertRefused(
  t: import('ava').ExecutionContext,
  result: Awaited<ReturnType<typeof authorize>>,
  scopes: string,
) {
  const { outcome, consentShown } = result;
  t.false(consentShown, 'no Allow button for what the user cannot grant');
  t.is(outcome.kind, 'redirect');
  if (outcome.kind !== 'redirect') return;
  t.is(`${outcome.url.origin}${outcome.url.pathname}`, client.redirectUri);
  t.is(outcome.url.searchParams.get('error'), 'access_denied');
  t.is(
    outcome.url.searchParams.get('error_description'),
    `${INSUFFICIENT_PERMISSIONS_DESCRIPTION}: ${scopes}`,
  );
  t.is(outcome.url.searchParams.get('state'), 'st');
  t.is(outcome.url.searchParams.get('code'), null);
}

test('a user without memberships cannot grant ORG_ or TEAM_ scopes: access_denied by redirect', async (t) => {
  const user = await insertUser(knex());
  assertRefused(t, await authorize(user, 'PROFILE_READ ORG_MEMBERSHIP_READ'), 'ORG_MEMBERSHIP_READ');
  assertRefused(t, await authorize(user, 'TEAM_BOOKING_READ'), 'TEAM_BOOKING_READ');
});

test('user-level scopes need no membership', async (t) => {
  const user = await insertUser(knex());
  const { outcome, consentShown } = await authorize(user, 'PROFILE_READ');
  t.true(consentShown);
  t.truthy(outcome.kind === 'redirect' && outcome.url.searchParams.get('code'));
});

test('an organization member may grant ORG_ scopes; TEAM_ needs a team membership or org ADMIN/OWNER', async (t) => {
  const owner = await insertUser(knex());
  const member = await insertUser(knex());
  const organization = await createOrganization(knex(), system.stores.tokenStore, {
    name: 'Perm Org',
    slug: slug(),
    ownerUserId: owner.user.id,
  });
  await createMembership(knex(), system.stores.tokenStore, {
    parent: { kind: 'organization', id: organization.id },
    member: { userId: member.user.id },
    role: 'MEMBER',
    accepted: true,
  });

  const asMember = await authorize(member, 'ORG_MEMBERSHIP_READ');
  t.true(asMember.consentShown);
  t.truthy(asMember.outcome.kind === 'redirect' && asMember.outcome.url.searchParams.get('code'));
  assertRefused(t, await authorize(member, 'TEAM_BOOKING_READ'), 'TEAM_BOOKING_READ');

  const asOwner = await authorize(owner, 'TEAM_BOOKING_READ ORG_MEMBERSHIP_READ');
  t.true(asOwner.consentShown);
  t.truthy(asOwner.outcome.kind === 'redirect' && asOwner.outcome.url.searchParams.get('code'));

  await createTeam(knex(), system.stores.tokenStore, {
    name: 'Perm Team',
    slug: slug(),
    organizationId: organization.id,
    ownerUserId: member.user.id,
  });
  const withTeam = await authorize(member, 'TEAM_BOOKING_READ');
  t.true(withTeam.consentShown);
});

test('an invitation that is not accepted grants nothing', async (t) => {
  const owner = await insertUser(knex());
  const invited = await insertUser(knex());
  const organization = await createOrganization(knex(), system.stores.tokenStore, {
    name: 'Invite Org',
    slug: slug(),
    ownerUserId: owner.user.id,
  });
  await createMembership(knex(), system.stores.tokenStore, {
    parent: { kind: 'organization', id: organization.id },
    member: { userId: invited.user.id },
    role: 'ADMIN',
    accepted: false,
  });
  assertRefused(t, await authorize(invited, 'ORG_MEMBERSHIP_READ'), 'ORG_MEMBERSHIP_READ');
});

test('remembered consent does not outlive the membership it needed', async (t) => {
  const owner = await insertUser(knex());
  const member = await insertUser(knex());
  const organization = await createOrganization(knex(), system.stores.tokenStore, {
    name: 'Left Org',
    slug: slug(),
    ownerUserId: owner.user.id,
  });
  const parent = { kind: 'organization', id: organization.id } as const;
  await createMembership(knex(), system.stores.tokenStore, {
    parent,
    member: { userId: member.user.id },
    role: 'MEMBER',
    accepted: true,
  });

  const browser = new FlowBrowser(system.url);
  const first = await authorize(member, 'ORG_MEMBERSHIP_READ', browser);
  t.true(first.consentShown);
  const second = await authorize(member, 'ORG_MEMBERSHIP_READ', browser);
  t.false(second.consentShown, 'remembered');
  t.truthy(second.outcome.kind === 'redirect' && second.outcome.url.searchParams.get('code'));

  const membership = await findMembershipOfUser(knex(), parent, member.user.id);
  await deleteMembership(knex(), system.stores.tokenStore, parent, membership!.id);
  assertRefused(t, await authorize(member, 'ORG_MEMBERSHIP_READ', browser), 'ORG_MEMBERSHIP_READ');
});
