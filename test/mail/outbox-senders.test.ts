import test from 'ava';
import { inviteToNewOrganization } from './invite.ts';
import { authorizeUrl, FlowBrowser } from '../support/oauth.ts';
import { freePort } from '../support/process.ts';
import { setUpTestSystem } from '../support/system.ts';
import { insertClient } from '../support/factories.ts';

// Every e-mail goes through the outbox, so an SMTP outage loses none: the verification mail of a
// sign-up and a membership invitation are kept, unsent, for the outbox worker to retry.

// Nothing listens on this port: every send is refused at once.
const system = setUpTestSystem(test, async () => ({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}` }));
const knex = () => system.stores.db.knex;

const outboxFor = (recipient: string) =>
  knex()('mail_outbox')
    .whereRaw('lower(recipient) = lower(?)', [recipient])
    .select('subject', 'sent_at', 'attempts', 'last_error', 'next_attempt_at');

test('a sign-up while SMTP is down keeps its verification mail in the outbox for a retry', async (t) => {
  const client = await insertClient(knex(), { scopes: ['PROFILE_READ'] });
  const browser = new FlowBrowser(system.url);
  const signIn = await browser.open(
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    }),
  );
  if (signIn.kind !== 'page') return t.fail('expected the sign-in page');
  const signUp = await browser.open(new URL(signIn.html.match(/href="([^"]+\/signup)"/)![1]!, system.url));
  if (signUp.kind !== 'page') return t.fail('expected the sign-up page');
  const email = `outage-${Date.now()}@example.com`;
  const consent = await browser.submit(signUp, '/signup', {
    name: 'Grace Hopper',
    email,
    username: `grace${Date.now()}`,
    password: 'correct horse battery',
  });
  t.is(consent.kind, 'page', 'the sign-up itself succeeds');

  const [queued, ...more] = await outboxFor(email);
  t.is(more.length, 0);
  t.is(queued?.subject, 'Verify your email address');
  t.is(queued?.sent_at, null);
  t.is(queued?.attempts, 1);
  t.truthy(queued?.last_error);
  t.true(new Date(queued!.next_attempt_at).getTime() > Date.now(), 'scheduled for a retry');
});

test('an invitation while SMTP is down is created and its mail kept in the outbox', async (t) => {
  const { status, email } = await inviteToNewOrganization(knex(), system.url);
  t.is(status, 201);
  const [queued] = await outboxFor(email);
  t.regex(queued?.subject ?? '', /You are invited to join the organization/);
  t.is(queued?.sent_at, null);
  t.is(queued?.attempts, 1);
});
