import { hashPassword } from '@sched/kit/passwords';
import type { Knex } from 'knex';
import type { VersionBumper } from '../versions.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { bumpUser, nextCredentialEpoch } from './users.ts';

/**
 * Password-reset links (table `password_reset_tokens`). Only the SHA-256 of the link's token is
 * stored. A user has at most one usable link: a new one deletes the older ones. Completing a reset
 * is one transaction that uses the link (a conditional UPDATE, so single use holds under races),
 * sets the password and marks the address verified (whoever reads the mail owns the address);
 * `user:<id>` is bumped after the commit.
 */

const TOKEN_HASH = /^[0-9a-f]{64}$/;

export type ResetLinkAuditAction = 'user.reset_link_created' | 'user.reset_link_sent';

export interface NewPasswordResetToken {
  userId: number;
  tokenHash: string;
  expiresAt: Date;
}

/**
 * Stores a new link's token; every earlier link of the user stops working. With `audit`, its
 * event is written in the same transaction (no token, no hash): `user.reset_link_created` when the
 * link is handed to the operator (the CLI's `reset-password`), `user.reset_link_sent` when it is
 * mailed to the user (the console's "Send reset link").
 */
export async function insertPasswordResetToken(
  knex: Knex,
  token: NewPasswordResetToken,
  audit?: AuditContext,
  action: ResetLinkAuditAction = 'user.reset_link_created',
): Promise<void> {
  await knex.transaction(async (trx) => {
    const voided = await trx('password_reset_tokens').where({ user_id: token.userId }).del();
    await trx('password_reset_tokens').insert({
      user_id: token.userId,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
    });
    if (audit) {
      await recordAuditEvent(trx, audit, {
        action,
        targetType: 'user',
        targetId: token.userId,
        details: { expiresAt: token.expiresAt.toISOString(), olderLinksVoided: voided },
      });
    }
  });
}

/** The user a link would reset, without using it (the form's GET); null when unknown, expired or used. */
export async function findUsablePasswordReset(
  knex: Knex,
  tokenHash: string,
  now: Date = new Date(),
): Promise<{ userId: number } | null> {
  if (!TOKEN_HASH.test(tokenHash)) return null;
  const row = (await knex('password_reset_tokens')
    .where({ token_hash: tokenHash })
    .whereNull('consumed_at')
    .where('expires_at', '>', now)
    .first('user_id')) as { user_id: string | number } | undefined;
  return row ? { userId: Number(row.user_id) } : null;
}

/**
 * Uses the link and sets the user's password, marking the address verified, in one transaction
 * with its `user.password_reset` event (no password, no token; the actor is whoever `audit` names,
 * the system without one: the link's holder is not signed in).
 * Returns the user's id; null (nothing changed) when the link is unknown, expired or already used.
 */
export async function completePasswordReset(
  knex: Knex,
  versions: VersionBumper,
  tokenHash: string,
  password: string,
  now: Date = new Date(),
  audit?: AuditContext,
): Promise<{ userId: number } | null> {
  if (!TOKEN_HASH.test(tokenHash)) return null;
  // Hash before the transaction: scrypt takes tens of milliseconds.
  const passwordHash = await hashPassword(password);
  const done = await knex.transaction(async (trx) => {
    const rows = (await trx('password_reset_tokens')
      .where({ token_hash: tokenHash })
      .whereNull('consumed_at')
      .where('expires_at', '>', now)
      .update({ consumed_at: now })
      .returning(['user_id'])) as Array<{ user_id: string | number }>;
    const row = rows[0];
    if (!row) return null;
    const userId = Number(row.user_id);
    const before = (await trx('users').where({ id: userId }).forUpdate().first('email_verified_at')) as
      | { email_verified_at: Date | null }
      | undefined;
    await trx('users')
      .where({ id: userId })
      .update({
        password_hash: passwordHash,
        ...nextCredentialEpoch(trx),
        email_verified_at: trx.raw('coalesce(email_verified_at, ?)', [now]),
        updated_at: trx.fn.now(),
      });
    // Other links of the user are worthless now.
    await trx('password_reset_tokens').where({ user_id: userId }).whereNull('consumed_at').del();
    await recordAuditEvent(trx, audit, {
      action: 'user.password_reset',
      targetType: 'user',
      targetId: userId,
      before: { emailVerified: before?.email_verified_at != null },
      after: { emailVerified: true },
      details: { through: 'reset_link' },
    });
    return { userId };
  });
  if (done) await bumpUser(knex, versions, done.userId);
  return done;
}
