import test, { type ExecutionContext } from 'ava';
import { createEmbedClient, embedUrl } from '../embed-flow/helpers.ts';
import { insertCustomRole, insertMembership, insertOrganization, insertUser } from '../support/factories.ts';
import { apiClient, type Call } from '../support/http.ts';
import { FlowBrowser, type PageResult, pkcePair, type RedirectResult } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { type SecondApi, startSecondApi } from './helpers/second-api.ts';

/**
 * Cache invalidation follows from the write: every data-layer write bumps the versions of what it
 * changed after its commit, whoever calls it (an API route, the authorization server's onboarding
 * embed). Each case warms the cached membership read (`GET …/memberships/:id`, tagged with the
 * organization's and the member's `user:<id>` versions) in this process and in a second API process
 * sharing the database and Redis, shows that the cache really answers (a change made behind the
 * data layer's back stays invisible), then writes, and expects the change on the very next request
 * in both processes. A write that forgot its bump would leave the old answer for up to 60 s.
 */

const PARENT = 'http://127.0.0.1:4557';

const { system, call: one, knex } = setUpWorld(test);
let second: SecondApi;
const two = apiClient(() => second.url);
const processes: Array<[string, Call]> = [
  ['first', one],
  ['second', two],
];

test.before(async () => {
  second = await startSecondApi(system);
});

test.after.always(async () => {
  await second?.close();
});

interface Watched {
  orgId: number;
  owner: { apiKey: string };
  membershipId: number;
}

const itemPath = (w: Watched) => `/v2/organizations/${w.orgId}/memberships/${w.membershipId}`;

async function read(t: ExecutionContext, call: Call, w: Watched, label: string) {
  const response = await call('GET', itemPath(w), { token: w.owner.apiKey });
  t.is(response.status, 200, `${label}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/**
 * Loads the membership into both processes' caches (the second read learns the member's version),
 * then changes the member's name behind the data layer's back and checks both still answer from
 * the cache: from here on only a version bump can show a change.
 */
async function warm(t: ExecutionContext, w: Watched, memberId: number) {
  for (const [name, call] of processes) {
    await read(t, call, w, `${name}: load`);
    await read(t, call, w, `${name}: load with the member's version`);
  }
  const before = await read(t, one, w, 'before');
  await knex()('users').where({ id: memberId }).update({ name: 'Changed without a bump' });
  for (const [name, call] of processes) {
    t.deepEqual(await read(t, call, w, `${name}: cached`), before, `${name}: served from the cache`);
  }
}

async function expectEverywhere(
  t: ExecutionContext,
  w: Watched,
  check: (membership: Record<string, unknown> & { user: Record<string, unknown> }) => void,
) {
  for (const [name, call] of processes) check(await read(t, call, w, `${name}: after the write`));
}

async function organizationWith(memberId: number) {
  const orgId = await insertOrganization(knex());
  const owner = await insertUser(knex());
  await insertMembership(knex(), { userId: owner.id, organizationId: orgId, role: 'OWNER' });
  const membershipId = await insertMembership(knex(), {
    userId: memberId,
    organizationId: orgId,
    role: 'MEMBER',
  });
  return { orgId, owner, membershipId };
}

function asPage(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

test.serial(
  'onboarding embed: the profile step is seen by the API on the next request (user:<id> bumped)',
  async (t) => {
    const client = await createEmbedClient(knex(), PARENT);
    const browser = new FlowBrowser(system.url);
    const who = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const entry = asPage(
      await browser.open(
        embedUrl(system.url, { client, parentOrigin: PARENT, challenge: pkcePair().challenge }),
      ),
    );
    const email = `onboarding-${who}@example.com`;
    const profile = asPage(
      await browser.submit(entry, '/signup', {
        name: 'Ada Lovelace',
        email,
        username: `ada-${who}`,
        password: 'correct horse battery',
      }),
    );
    t.regex(profile.html, /Set up your profile/);
    const member = (await knex()('users').whereRaw('lower(email) = ?', [email]).first('id')) as {
      id: number;
    };
    const watched = await organizationWith(Number(member.id));
    await warm(t, watched, Number(member.id));

    const calendar = asPage(
      await browser.submit(profile, '/profile', {
        name: 'Ada Byron',
        username: `byron-${who}`,
        time_zone: 'Europe/London',
        week_start: 'Monday',
      }),
    );
    t.regex(calendar.html, /Connect your calendar/);
    await expectEverywhere(t, watched, (membership) => {
      t.is(membership.user['name'], 'Ada Byron');
      t.is(membership.user['username'], `byron-${who}`);
    });
  },
);

test.serial('a user write (PATCH /v2/me) bumps user:<id>', async (t) => {
  const member = await insertUser(knex());
  const watched = await organizationWith(member.id);
  await warm(t, watched, member.id);
  const patched = await one('PATCH', '/v2/me', { token: member.apiKey, body: { name: 'Renamed Member' } });
  t.is(patched.status, 200);
  await expectEverywhere(t, watched, (membership) => t.is(membership.user['name'], 'Renamed Member'));
});

test.serial("a membership write (PATCH the role) bumps the organization's version", async (t) => {
  const member = await insertUser(knex());
  const watched = await organizationWith(member.id);
  await warm(t, watched, member.id);
  const patched = await two('PATCH', itemPath(watched), {
    token: watched.owner.apiKey,
    body: { role: 'ADMIN' },
  });
  t.is(patched.status, 200);
  await expectEverywhere(t, watched, (membership) => t.is(membership.role, 'ADMIN'));
});

test.serial("a role write (DELETE a custom role) bumps the organization's version", async (t) => {
  const member = await insertUser(knex());
  const orgId = await insertOrganization(knex());
  const roleId = await insertCustomRole(knex(), orgId, ['booking.read']);
  const owner = await insertUser(knex());
  await insertMembership(knex(), { userId: owner.id, organizationId: orgId, role: 'OWNER' });
  const membershipId = await insertMembership(knex(), {
    userId: member.id,
    organizationId: orgId,
    role: 'MEMBER',
    customRoleId: roleId,
  });
  const watched = { orgId, owner, membershipId };
  await warm(t, watched, member.id);
  const deleted = await one('DELETE', `/v2/organizations/${orgId}/roles/${roleId}`, { token: owner.apiKey });
  t.is(deleted.status, 200);
  await expectEverywhere(t, watched, (membership) => t.is(membership.customRoleId, null));
});
