import type { Knex } from '@sched/db/connection';
import type { AuditContext } from '@sched/db/queries/audit-log';
import {
  completePasswordReset,
  findUsablePasswordReset,
  insertPasswordResetToken,
  type ResetLinkAuditAction,
} from '@sched/db/queries/password-resets';
import { findUserByEmail, findUserById, type User } from '@sched/db/queries/users';
import { randomToken, sha256Hex } from '@sched/kit/secrets';
import { linkMessage } from './link-mail.ts';
import { sendThroughOutbox } from '@sched/runtime/mail-delivery';
import type { AccountDeps } from './deps.ts';
import { type EndedEverything, endEverythingOf } from './end-everything.ts';
import { ACCOUNT_PATHS, tokenLink } from './paths.ts';

/**
 * Password resets ("Forgot password?"). A link works once, for 30 minutes; a new link voids the
 * older ones; only the token's SHA-256 is stored. Completing one sets the password, marks the
 * address verified and ends everything the account could be used with: it is how the owner of an
 * address takes back an account someone else registered with it.
 */
export const PASSWORD_RESET_TTL_SECONDS = 30 * 60;

/** Reset e-mails per address and hour. */

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * A new one-time reset link for the user (older links stop working). With `audit`, its event is
 * written with the link (the CLI's `reset-password`; the console records that it sent one).
 */
export async function createPasswordResetLink(
  knex: Knex,
  appUrl: string,
  userId: number,
  audit?: AuditContext,
  action?: ResetLinkAuditAction,
): Promise<string> {
  const token = randomToken(32);
  await insertPasswordResetToken(
    knex,
    {
      userId,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(Date.now() + PASSWORD_RESET_TTL_SECONDS * 1000),
    },
    audit,
    action,
  );
  return tokenLink(appUrl, ACCOUNT_PATHS.resetPassword, token);
}

/**
 * Writes and sends a reset e-mail to the user now. With `audit` (the admin console's "Send reset
 * link"), `user.reset_link_sent` is written in the link's own transaction.
 */
export async function sendResetEmail(deps: AccountDeps, user: User, audit?: AuditContext): Promise<void> {
  const link = await createPasswordResetLink(
    deps.stores.db.knex,
    deps.config.appUrl,
    user.id,
    audit,
    'user.reset_link_sent',
  );
  await sendThroughOutbox(
    deps,
    linkMessage(user, {
      subject: 'Reset your password',
      intro:
        'Someone (hopefully you) asked to reset the password of the Scheduling account of this address. Choose a new password here:',
      action: 'Choose a new password',
      link,
      fineprint:
        'The link works once, for 30 minutes. Resetting signs the account out everywhere and revokes its API keys and app authorizations. If you did not ask for this, ignore this message.',
    }),
  );
}

/**
 * "Forgot password?": sends a reset link when `email` belongs to a regular account, and nothing
 * otherwise. The caller answers the same either way; the mail is written and sent after this
 * returns (not awaited), so the answer takes as long with an account as without one. Managed
 * users (no sign-in of their own) get nothing.
 */
export async function requestPasswordReset(deps: AccountDeps, email: string): Promise<void> {
  // The same two round trips with or without an account (the lookup and the counter), in parallel.
  // At most the `password-reset-address` limit per typed address, so the form cannot flood
  // someone's mailbox; past it the page answers the same and nothing is sent.
  const limit = deps.config.rateLimits['password-reset-address'];
  const [user, { count }] = await Promise.all([
    findUserByEmail(deps.stores.db.knex, email),
    deps.stores.tokenStore.hit(
      `password-reset:account:${sha256Hex(email.trim().toLowerCase()).slice(0, 32)}`,
      limit.windowSeconds,
    ),
  ]);
  if (!user || user.managedByClientId !== null || count > limit.max) return;
  void sendResetEmail(deps, user).catch((error: unknown) => {
    deps.logger.error({ err: error, userId: user.id }, 'password reset e-mail not written');
  });
}

/** The user a reset link is for, without using it (the form's page); null when it cannot be used. */
export async function userOfResetLink(deps: AccountDeps, token: string): Promise<User | null> {
  if (!TOKEN.test(token)) return null;
  const found = await findUsablePasswordReset(deps.stores.db.knex, sha256Hex(token));
  return found ? findUserById(deps.stores.db.knex, found.userId) : null;
}

/**
 * Uses the link: sets the password, marks the address verified, then ends every session, API key
 * and OAuth grant of the account. Null when the link is unknown, expired or used (nothing changed).
 * The password must already satisfy the sign-up rule (`password-rules.ts`). The `user.password_reset`
 * event is written in the reset's transaction; `audit` names the request (its actor is the system:
 * whoever holds the link is not signed in), none for the system alone.
 */
export async function resetPassword(
  deps: AccountDeps,
  token: string,
  password: string,
  audit?: AuditContext,
): Promise<{ userId: number; ended: EndedEverything } | null> {
  if (!TOKEN.test(token)) return null;
  const done = await completePasswordReset(
    deps.stores.db.knex,
    deps.stores.tokenStore,
    sha256Hex(token),
    password,
    new Date(),
    audit,
  );
  if (!done) return null;
  return { userId: done.userId, ended: await endEverythingOf(deps, done.userId) };
}
