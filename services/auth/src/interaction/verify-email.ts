import { ACCOUNT_PATHS } from '@sched/accounts/paths';
import { consumeEmailVerificationToken } from '@sched/db/queries/email-verification-tokens';
import { findUserById, updateUser } from '@sched/db/queries/users';
import { sha256Hex } from '@sched/kit/secrets';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { singleQueryValue } from '../http/params.ts';
import { messagePage } from '../pages/error.ts';
import { html } from '../pages/html.ts';
import { sendPage } from '../pages/layout.ts';

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;
/**
 * An unusable link (400) says how to get a new one: the resend button of the settings profile page
 * (or `POST /v2/me/verification-email`); signed out, that page goes through sign-in first.
 */
class InvalidLink extends Error {}
const invalidLink = () => new InvalidLink();

function sendInvalidLinkPage(ctx: Context): void {
  sendPage(
    ctx,
    400,
    'Link not valid',
    html`<h1>Link not valid</h1>
<div class="alert alert-error" role="alert">This verification link is invalid, expired or already used.</div>
<p>To get a new one, <a href="${ACCOUNT_PATHS.settingsProfile}">open your profile page</a> (sign in if asked) and choose <strong>Resend verification e-mail</strong>.</p>`,
  );
}

/** GET /auth/verify-email?token=...: marks the address verified (when it is still the user's). */
export function verifyEmail(deps: AuthDeps) {
  const { knex } = deps.runtime.stores.db;
  return async function verifyEmailHandler(ctx: Context) {
    try {
      await verify(ctx);
    } catch (error) {
      if (!(error instanceof InvalidLink)) throw error;
      sendInvalidLinkPage(ctx);
    }
  };
  async function verify(ctx: Context) {
    const token = singleQueryValue(ctx, 'token');
    if (!token || !TOKEN.test(token)) throw invalidLink();
    const record = await consumeEmailVerificationToken(knex, sha256Hex(token));
    if (!record) throw invalidLink();
    const user = await findUserById(knex, record.userId);
    if (!user || user.email.toLowerCase() !== record.email.toLowerCase()) throw invalidLink();
    if (!user.emailVerifiedAt)
      await updateUser(knex, deps.runtime.stores.tokenStore, user.id, { emailVerifiedAt: new Date() });
    sendPage(
      ctx,
      200,
      'Email verified',
      messagePage('Email verified', `Thanks! ${user.email} is confirmed.`),
    );
  }
}
