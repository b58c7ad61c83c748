import { listAuditEvents } from '@sched/db/queries/audit-log';
import test from 'ava';
import { clientCredentials, type FlowBrowser, obtainCode, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Every grant is in the audit log (`grant.created`): the one the consent page creates on Allow, in
// the consent's own transaction, and each one a remembered consent makes without a prompt. The
// actor is the user, the target the client; never a token or a code.

const {
  system,
  user,
  knex,
  clients: { app },
} = setUpWorld(test, {
  clients: { app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] } },
});

async function authorize(browser?: FlowBrowser) {
  const pkce = pkcePair();
  const { code, browser: used } = await obtainCode(
    system.url,
    {
      client_id: app.client.id,
      redirect_uri: app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: pkce.challenge,
    },
    { user, ...(browser ? { browser } : {}) },
  );
  const answer = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: pkce.verifier,
  });
  return { browser: used, answer };
}

const grantEvents = async () =>
  (await listAuditEvents(knex(), { action: 'grant.created', targetId: app.client.id }, { take: 50 })).events;

test.serial(
  'Allow on the consent page, then a remembered consent: one grant.created each, by the user',
  async (t) => {
    const { browser, answer } = await authorize();
    t.is(answer.status, 200);
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
    t.notRegex(JSON.stringify(given), new RegExp(answer.body.access_token as string));

    // The same browser again: no prompt, a new grant from the remembered consent.
    t.is((await authorize(browser)).answer.status, 200);
    const events = await grantEvents();
    t.is(events.length, 2);
    t.like(events[0], {
      actor: { kind: 'user', userId: user.id },
      after: { userId: user.id, scopes: ['PROFILE_READ'] },
      details: { consent: 'remembered' },
    });
  },
);
