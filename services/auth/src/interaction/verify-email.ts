import { findUserById, updateUser } from '@sched/db/queries/users';
import { BadRequestError } from '@sched/kit/errors';
import { sha256Hex } from '@sched/kit/secrets';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { singleQueryValue } from '../http/params.ts';
import { messagePage } from '../pages/error.ts';
import { sendPage } from '../pages/layout.ts';
import { EMAIL_VERIFICATION_MODEL, type EmailVerificationRecord } from './email-verification.ts';

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;
const invalidLink = () =>
  new BadRequestError(
    'This verification link is invalid, expired or already used. Sign in to get a new one.',
  );

/** GET /auth/verify-email?token=...: marks the address verified (when it is still the user's). */
export function verifyEmail(deps: AuthDeps) {
  const store = deps.runtime.stores.tokenStore;
  const { knex } = deps.runtime.stores.db;
  return async function verifyEmailHandler(ctx: Context) {
    const token = singleQueryValue(ctx, 'token');
    if (!token || !TOKEN.test(token)) throw invalidLink();
    const id = sha256Hex(token);
    const record = await store.find<EmailVerificationRecord>(EMAIL_VERIFICATION_MODEL, id);
    if (!record || !(await store.consume(EMAIL_VERIFICATION_MODEL, id))) throw invalidLink();
    const user = await findUserById(knex, Number(record.userId));
    if (!user || user.email.toLowerCase() !== String(record.email).toLowerCase()) throw invalidLink();
    if (!user.emailVerifiedAt) await updateUser(knex, user.id, { emailVerifiedAt: new Date() });
    sendPage(
      ctx,
      200,
      'Email verified',
      messagePage('Email verified', `Thanks! ${user.email} is confirmed.`),
    );
  };
}
