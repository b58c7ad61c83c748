import { createHash } from 'node:crypto';
import test from 'ava';
import { insertApiKey, insertUser, uniqueTag } from '../support/factories.ts';
import {
  authorizeUrl,
  FlowBrowser,
  formOf,
  issueTokens,
  tokenRequest,
  clientCredentials,
} from '../support/oauth.ts';
import { commands } from '@sched/launcher/commands';
import { beforeNextSessionSave } from '../support/tokens.ts';
import { setUpWorld } from '../support/world.ts';
import {
  askForReset,
  completeReset,
  follow,
  linkHref,
  linkInMail,
  nextMail,
  page,
  RESET_SUBJECT,
  signInToSettings,
  signUpFromSettings,
  text,
} from './accounts.ts';

// "Forgot password?": on every sign-in page; the same answer with or without an account; a link
// works once, for 30 minutes, and a new one voids the older; completing a reset sets the password
// (sign-up rules), marks the address verified and ends every session, API key and OAuth grant of
// the account: how the owner of an address takes back an account someone else registered with it.
// Mail through the world's SMTP server.

const world = setUpWorld(test, { clients: { app: {} } });
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

test('every sign-in page links to "Forgot password?", a form for the address', async (t) => {
  const browser = new FlowBrowser(world.system.url);
  const settings = page(await browser.open('/auth/settings/sign-in'));
  t.is(linkHref(settings.html, 'Forgot password?'), '/auth/forgot-password');

  const app = world.clients.app;
  const authorize = page(
    await browser.open(
      `/auth/oauth2/authorize?client_id=${encodeURIComponent(app.client.id)}&redirect_uri=${encodeURIComponent(app.redirectUri)}&scope=${app.client.scopes.join('%20')}&state=s`,
    ),
  );
  t.regex(authorize.html, /<h1>Sign in<\/h1>/);
  t.is(linkHref(authorize.html, 'Forgot password?'), '/auth/forgot-password');

  const form = await follow(browser, authorize, 'Forgot password?');
  t.is(form.status, 200);
  t.regex(form.html, /<label for="email">Email<\/label>/);
  t.regex(form.html, /Send reset link/);
});

test('the answer is the same whether the address has an account or not; only an account gets mail', async (t) => {
  const user = await insertUser(world.knex());
  const unknown = `nobody-${uniqueTag()}@example.com`;
  const forUnknown = await askForReset(world, unknown);
  const forUser = await askForReset(world, user.email);
  t.is(forUnknown.status, 200);
  t.is(forUser.status, 200);
  const answer = (html: string, email: string) => text(html).replace(email, '<address>');
  t.is(answer(forUnknown.html, unknown), answer(forUser.html, user.email));
  t.regex(text(forUser.html), /If an account uses/);

  const mail = await nextMail(world, user.email, RESET_SUBJECT);
  t.regex(linkInMail(mail, '/auth/reset-password'), /^http:\/\/[^/]+\/auth\/reset-password\?token=/);
  t.regex(mail.text ?? '', /30 minutes/);
  // The unknown address's request came first: it would be in the outbox by now.
  const queued = await world.knex()('mail_outbox').whereRaw('lower(recipient) = lower(?)', [unknown]);
  t.deepEqual(queued, []);
});

test('a reset sets the password, marks the address verified; the link works once and only its hash is stored', async (t) => {
  const user = await insertUser(world.knex());
  await world.knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  await askForReset(world, user.email);
  const link = linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password');
  const stored = await world.knex()('password_reset_tokens').where({ user_id: user.id }).pluck('token_hash');
  t.deepEqual(stored, [sha256(tokenOf(link))]);

  const done = await completeReset(world, link, 'a brand new password');
  t.is(done.status, 200);
  t.regex(text(done.html), /Password changed/);
  t.truthy(linkHref(done.html, 'Sign in'));

  t.is((await signInToSettings(world, user.email, user.password)).landed.status, 401, 'old password');
  const fresh = await signInToSettings(world, user.email, 'a brand new password');
  t.is(fresh.landed.url.pathname, '/auth/settings');
  const row = await world.knex()('users').where({ id: user.id }).first('email_verified_at');
  t.truthy(row.email_verified_at, 'verified by the reset');

  const again = page(await new FlowBrowser(world.system.url).open(link));
  t.is(again.status, 400, 'the link works once');
  t.regex(text(again.html), /invalid, expired or already used/);
  t.is(linkHref(again.html, 'Ask for a new link'), '/auth/forgot-password');
});

test('a reset writes user.password_reset (the system acts, with the request address), never the password or the token', async (t) => {
  const user = await insertUser(world.knex());
  await world.knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  await askForReset(world, user.email);
  const link = linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password');
  const refused = await completeReset(world, link, 'a brand new password', 'another password');
  t.is(refused.status, 400);
  t.is((await completeReset(world, link, 'a brand new password')).status, 200);
  const answer = await world.call('GET', `/v2/admin/audit-events?targetType=user&targetId=${user.id}`, {
    token: world.admin.apiKey,
  });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const resets = answer.body.data.filter(
    (event: { action: string }) => event.action === 'user.password_reset',
  );
  t.is(resets.length, 1, 'one event, none for the refused form');
  t.like(resets[0], {
    actor: { type: 'system', userId: null },
    target: { type: 'user', id: String(user.id) },
    before: { emailVerified: false },
    after: { emailVerified: true },
  });
  t.truthy(resets[0].ipAddress);
  const everything = JSON.stringify(resets[0]);
  t.false(everything.includes('a brand new password'));
  t.false(everything.includes(tokenOf(link)));
  t.false(everything.includes(sha256(tokenOf(link))));
});

test('a new link voids the older ones; an expired link is refused', async (t) => {
  const user = await insertUser(world.knex());
  await askForReset(world, user.email);
  const first = linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password');
  await askForReset(world, user.email);
  const second = linkInMail(await nextMail(world, user.email, RESET_SUBJECT, 1), '/auth/reset-password');
  t.not(first, second);
  t.is((await completeReset(world, first, 'another long password')).status, 400, 'voided by the newer');

  await world
    .knex()('password_reset_tokens')
    .where({ token_hash: sha256(tokenOf(second)) })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.is((await completeReset(world, second, 'another long password')).status, 400, 'expired');
  t.is((await signInToSettings(world, user.email, user.password)).landed.url.pathname, '/auth/settings');
});

test('links live 30 minutes', async (t) => {
  const user = await insertUser(world.knex());
  const before = Date.now();
  await askForReset(world, user.email);
  await nextMail(world, user.email, RESET_SUBJECT);
  const row = await world.knex()('password_reset_tokens').where({ user_id: user.id }).first('expires_at');
  const lifetime = new Date(row.expires_at).getTime() - before;
  t.true(lifetime > 29 * 60_000 && lifetime <= 30 * 60_000 + 5_000, String(lifetime));
});

test('the new password follows the sign-up rules and is typed twice; a refused one leaves the link usable', async (t) => {
  const user = await insertUser(world.knex());
  await askForReset(world, user.email);
  const link = linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password');
  const short = await completeReset(world, link, 'short');
  t.is(short.status, 400);
  t.regex(short.html, /id="password-error">Use at least 8 characters/);
  const differ = await completeReset(world, link, 'a long password one', 'a long password two');
  t.is(differ.status, 400);
  t.regex(differ.html, /id="confirm-error">The two passwords differ/);
  t.is((await completeReset(world, link, 'a long password one')).status, 200);
});

test('an invalid address is a 400 on the form', async (t) => {
  const invalid = await askForReset(world, 'not-an-address');
  t.is(invalid.status, 400);
  t.regex(invalid.html, /Enter a valid email address/);
});

test('the owner of an address takes back an account a squatter registered with it', async (t) => {
  const victim = `victim-${uniqueTag()}@example.com`;
  const squatterPassword = 'the squatter password';
  const { browser: squatter } = await signUpFromSettings(world, {
    email: victim,
    username: `squat${uniqueTag()}`.slice(0, 30),
    password: squatterPassword,
  });
  const account = await world.knex()('users').whereRaw('lower(email) = lower(?)', [victim]).first('id');
  const apiKey = await insertApiKey(world.knex(), Number(account.id));
  const app = world.clients.app;
  const tokens = await issueTokens(world.system.url, app, { email: victim, password: squatterPassword });
  t.is((await world.call('GET', '/v2/me', { token: apiKey })).status, 200);
  t.is((await world.call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
  t.is(page(await squatter.open('/auth/settings')).url.pathname, '/auth/settings');
  const unverified = await world.call('GET', '/v2/me', { token: apiKey });
  t.is(unverified.body.data.emailVerified, false);

  // The owner of the address asks for a reset and follows the e-mail's link.
  await askForReset(world, victim);
  const link = linkInMail(await nextMail(world, victim, RESET_SUBJECT), '/auth/reset-password');
  t.is((await completeReset(world, link, 'the owner takes it back')).status, 200);

  t.is((await world.call('GET', '/v2/me', { token: apiKey })).status, 401, 'API key revoked');
  t.is(
    (await world.call('GET', '/v2/me', { token: tokens.access_token })).status,
    401,
    'access token revoked',
  );
  const refresh = await tokenRequest(world.system.url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(refresh.status, 400);
  t.is(refresh.body.error, 'invalid_grant', 'refresh token revoked');
  const signedOut = page(await squatter.open('/auth/settings'));
  t.is(signedOut.url.pathname, '/auth/settings/sign-in', 'the squatter session ended');
  t.is((await signInToSettings(world, victim, squatterPassword)).landed.status, 401);

  const owner = await signInToSettings(world, victim, 'the owner takes it back');
  t.is(owner.landed.url.pathname, '/auth/settings');
  const key = await insertApiKey(world.knex(), Number(account.id));
  t.is((await world.call('GET', '/v2/me', { token: key })).body.data.emailVerified, true);
});

test("the operator's reset URL (reset-password command) works like the e-mail's", async (t) => {
  const user = await insertUser(world.knex());
  const url = await commands['reset-password'](world.knex(), { email: user.email, appUrl: world.system.url });
  t.regex(url, /\/auth\/reset-password\?token=/);
  t.is((await completeReset(world, url, 'set by the operator link')).status, 200);
  const signIn = await signInToSettings(world, user.email, 'set by the operator link');
  t.is(signIn.landed.url.pathname, '/auth/settings');
  t.is((await completeReset(world, url, 'set by the operator link')).status, 400, 'once');
});

/** A user, and a reset link of theirs from the e-mail. */
async function userWithResetLink() {
  const user = await insertUser(world.knex());
  await askForReset(world, user.email);
  return { user, link: linkInMail(await nextMail(world, user.email, RESET_SUBJECT), '/auth/reset-password') };
}

test.serial(
  'a settings sign-in that checked the old password just before a reset does not outlive it, though its session is saved after',
  async (t) => {
    const { user, link } = await userWithResetLink();
    // The reset runs to its end (sessions ended) between the sign-in's password check and its session.
    const hook = beforeNextSessionSave(world.system.stores.tokenStore, String(user.id), () =>
      completeReset(world, link, 'the owner takes it back'),
    );
    let raced: Awaited<ReturnType<typeof signInToSettings>>;
    try {
      raced = await signInToSettings(world, user.email, user.password);
    } finally {
      hook.restore();
    }
    t.is((await hook.ran).status, 200, 'the reset went through in between');
    t.is(raced.landed.url.pathname, '/auth/settings/sign-in', 'signed out at once');
    t.is(page(await raced.browser.open('/auth/settings')).url.pathname, '/auth/settings/sign-in');
    const owner = await signInToSettings(world, user.email, 'the owner takes it back');
    t.is(owner.landed.url.pathname, '/auth/settings');
  },
);

test.serial(
  'an authorization sign-in that checked the old password just before a reset gets no code: it must sign in again',
  async (t) => {
    const { user, link } = await userWithResetLink();
    const app = world.clients.app;
    const browser = new FlowBrowser(world.system.url);
    const signIn = page(
      await browser.open(
        authorizeUrl(world.system.url, {
          client_id: app.client.id,
          redirect_uri: app.redirectUri,
          response_type: 'code',
          scope: app.client.scopes.join(' '),
          state: 's',
        }),
      ),
    );
    t.regex(signIn.html, /<h1>Sign in<\/h1>/);
    const hook = beforeNextSessionSave(world.system.stores.tokenStore, String(user.id), () =>
      completeReset(world, link, 'the owner takes it back'),
    );
    let after: Awaited<ReturnType<FlowBrowser['submit']>>;
    try {
      after = await browser.submit(signIn, '/signin', { email: user.email, password: user.password });
    } finally {
      hook.restore();
    }
    t.is((await hook.ran).status, 200, 'the reset went through in between');
    // Neither a code nor the consent page: the authorization asks for a sign-in again.
    t.is(after.kind, 'page');
    t.truthy(formOf(page(after).html, '/signin'), page(after).html);
    t.falsy(formOf(page(after).html, '/consent'));
  },
);
