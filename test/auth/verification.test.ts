import test from 'ava';
import { insertApiKey, insertClient, insertUser, uniqueTag } from '../support/factories.ts';
import { FlowBrowser, issueTokens } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import {
  linkHref,
  linkInMail,
  mailCount,
  nextMail,
  page,
  signUpFromSettings,
  text,
  VERIFY_SUBJECT,
} from './accounts.ts';

// E-mail verification: sign-up sends a link (single use, 24 hours); accounts made by a service
// administrator count as verified; GET /v2/me has emailVerified; POST /v2/me/verification-email
// sends a new link (older ones stop working), 409 when verified, 429 past the limit per user, 403
// for third-party OAuth tokens; an unverified account can sign in and grant consent; an unusable
// link says how to get a new one.

const world = setUpWorld(test, { clients: { app: {} } });

/** A user as sign-up leaves them: unverified (factory user, verification cleared), with an API key. */
async function unverifiedUser() {
  const user = await insertUser(world.knex());
  await world.knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  return user;
}

test('sign-up from settings sends a link that verifies the address once; /v2/me shows it', async (t) => {
  const email = `new-${uniqueTag()}@example.com`;
  await signUpFromSettings(world, {
    email,
    username: `u${uniqueTag()}`.slice(0, 30),
    password: 'a long password',
  });
  const mail = await nextMail(world, email, VERIFY_SUBJECT);
  t.regex(mail.text ?? '', /24 hours/);
  const link = linkInMail(mail, '/auth/verify-email');
  const row = await world.knex()('users').whereRaw('lower(email) = lower(?)', [email]).first('id');
  const apiKey = await insertApiKey(world.knex(), Number(row.id));
  t.is((await world.call('GET', '/v2/me', { token: apiKey })).body.data.emailVerified, false);

  const expires = await world
    .knex()('email_verification_tokens')
    .where({ user_id: row.id })
    .first('expires_at');
  const lifetime = new Date(expires.expires_at).getTime() - Date.now();
  t.true(lifetime > 23.9 * 3600_000 && lifetime <= 24 * 3600_000, String(lifetime));

  const opened = await fetch(link);
  t.is(opened.status, 200);
  t.regex(await opened.text(), /Email verified/);
  t.is((await world.call('GET', '/v2/me', { token: apiKey })).body.data.emailVerified, true);

  const reused = page(await new FlowBrowser(world.system.url).open(link));
  t.is(reused.status, 400, 'single use');
  t.regex(text(reused.html), /invalid, expired or already used/);
  t.false(/Sign in to get a new one/.test(reused.html));
  t.is(linkHref(reused.html, 'open your profile page'), '/auth/settings/profile');
  t.regex(text(reused.html), /Resend verification e-mail/);
});

test('accounts made by a service administrator count as verified (admin API)', async (t) => {
  const created = await world.call('POST', '/v2/admin/users', {
    token: world.admin.apiKey,
    body: { email: `made-${uniqueTag()}@example.com`, password: 'an admin-made password' },
  });
  t.is(created.status, 201);
  const me = await world.call('GET', '/v2/me', { token: created.body.data.apiKey });
  t.is(me.body.data.emailVerified, true);
});

test('POST /v2/me/verification-email: 202 and a new link that voids the older; 409 once verified', async (t) => {
  const user = await unverifiedUser();
  const first = await world.call('POST', '/v2/me/verification-email', { token: user.apiKey });
  t.is(first.status, 202);
  const older = linkInMail(await nextMail(world, user.email, VERIFY_SUBJECT), '/auth/verify-email');
  const second = await world.call('POST', '/v2/me/verification-email', { token: user.apiKey });
  t.is(second.status, 202);
  const newer = linkInMail(await nextMail(world, user.email, VERIFY_SUBJECT, 1), '/auth/verify-email');
  t.not(older, newer);
  t.is((await fetch(older)).status, 400, 'the older link no longer works');
  t.is((await fetch(newer)).status, 200);
  t.is((await world.call('GET', '/v2/me', { token: user.apiKey })).body.data.emailVerified, true);

  const verified = await world.call('POST', '/v2/me/verification-email', { token: user.apiKey });
  t.is(verified.status, 409);
  t.is(verified.body.error.message, 'Your e-mail address is already verified');
  t.is(mailCount(world, user.email, VERIFY_SUBJECT), 2, 'no mail for a verified address');
});

test('POST /v2/me/verification-email is limited per user: 429 with Retry-After', async (t) => {
  const user = await unverifiedUser();
  for (let i = 0; i < 5; i++)
    t.is(
      (await world.call('POST', '/v2/me/verification-email', { token: user.apiKey })).status,
      202,
      `#${i + 1}`,
    );
  const limited = await world.call('POST', '/v2/me/verification-email', { token: user.apiKey });
  t.is(limited.status, 429);
  t.true(Number(limited.headers.get('retry-after')) > 0);
  t.regex(limited.body.error.message, /Too many verification e-mails requested/);
  const other = await unverifiedUser();
  t.is(
    (await world.call('POST', '/v2/me/verification-email', { token: other.apiKey })).status,
    202,
    'per user',
  );
});

test('POST /v2/me/verification-email is not for third-party OAuth tokens', async (t) => {
  const user = await unverifiedUser();
  const tokens = await issueTokens(world.system.url, world.clients.app, user);
  const refused = await world.call('POST', '/v2/me/verification-email', { token: tokens.access_token });
  t.is(refused.status, 403);
  t.is(
    refused.body.error.message,
    'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
  );
  t.is((await world.call('POST', '/v2/me/verification-email', {})).status, 401);
});

test('an unverified account signs in and grants consent (the access token works)', async (t) => {
  const user = await unverifiedUser();
  const client = await insertClient(world.knex());
  const tokens = await issueTokens(world.system.url, client, user);
  const me = await world.call('GET', '/v2/me', { token: tokens.access_token });
  t.is(me.status, 200);
  t.is(me.body.data.emailVerified, false);
});
