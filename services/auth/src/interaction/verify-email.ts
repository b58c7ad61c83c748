import { consumeEmailVerificationToken } from '@sched/db/queries/email-verification-tokens';
import { findUserById, updateUser } from '@sched/db/queries/users';
import { BadRequestError } from '@sched/kit/errors';
import { sha256Hex } from '@sched/kit/secrets';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { singleQueryValue } from '../http/params.ts';
import { messagePage } from '../pages/error.ts';
import { sendPage } from '../pages/layout.ts';

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;
const invalidLink = () =>
  new BadRequestError(
    'This verification link is invalid, expired or already used. Sign in to get a new one.',
  );

/** GET /auth/verify-email?token=...: marks the address verified (when it is still the user's). */
export function verifyEmail(deps: AuthDeps) {
  const { knex } = deps.runtime.stores.db;
  return async function verifyEmailHandler(ctx: Context) {
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
  };
}
