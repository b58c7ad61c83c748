import { listAuditEvents } from '@sched/db/queries/audit-log';
import test from 'ava';
import { insertClient, insertMembership, insertOrganization, insertUser } from '../support/factories.ts';
import { FlowBrowser, issueTokens } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Every grant is in the audit log (`grant.created`): the one the consent page creates on Allow, in
// the consent's own transaction, and each one a remembered consent makes without a prompt. The
// actor is the user, the target the client; never a token or a code.

const {
  system,
  call,
  user,
  knex,
  clients: { app },
} = setUpWorld(test, {
  clients: { app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] } },
});

const grantEvents = async () =>
  (await listAuditEvents(knex(), { action: 'grant.created', targetId: app.client.id }, { take: 50 })).events;

test.serial(
  'Allow on the consent page, then a remembered consent: one grant.created each, by the user',
  async (t) => {
    // One browser: its session and the remembered consent carry over to the second authorization.
    const browser = new FlowBrowser(system.url);
    const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ'], browser);
    const [given] = await grantEvents();
    t.like(given, {
      action: 'grant.created',
      targetType: 'oauth_client',
      targetId: app.client.id,
      actor: { kind: 'user', userId: user.id },
      after: { userId: user.id, scopes: ['PROFILE_READ'] },
      details: { consent: 'given' },
    });
    t.truthy(given!.requestId);
    t.truthy(given!.ipAddress);
    t.false(JSON.stringify(given).includes(tokens.access_token));

    await issueTokens(system.url, app, user, ['PROFILE_READ'], browser);
    const events = await grantEvents();
    t.is(events.length, 2);
    t.like(events[0], {
      actor: { kind: 'user', userId: user.id },
      after: { userId: user.id, scopes: ['PROFILE_READ'] },
      details: { consent: 'remembered' },
    });
  },
);

test.serial(
  "a client of an organization: its grants and disconnections are in that organization's log",
  async (t) => {
    const orgId = await insertOrganization(knex());
    const orgAdmin = await insertUser(knex());
    await insertMembership(knex(), { userId: orgAdmin.id, organizationId: orgId, role: 'ADMIN' });
    const orgApp = await insertClient(knex(), { organizationId: orgId, scopes: ['PROFILE_READ'] });
    const orgEvents = async () => {
      const answer = await call(
        'GET',
        `/v2/organizations/${orgId}/audit-events?targetId=${orgApp.client.id}`,
        {
          token: orgAdmin.apiKey,
        },
      );
      t.is(answer.status, 200);
      return answer.body.data as Array<{ action: string; organizationId: number | null; after: unknown }>;
    };

    await issueTokens(system.url, orgApp, user, ['PROFILE_READ']);
    const [granted] = await orgEvents();
    t.like(granted, { action: 'grant.created', organizationId: orgId, after: { userId: user.id } });

    t.is(
      (await call('DELETE', `/v2/me/connected-apps/${orgApp.client.id}`, { token: user.apiKey })).status,
      204,
    );
    t.deepEqual(
      (await orgEvents()).map((event) => event.action),
      ['connected_app.revoked', 'grant.created'],
    );
  },
);
