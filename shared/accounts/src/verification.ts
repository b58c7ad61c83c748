import { insertEmailVerificationToken } from '@sched/db/queries/email-verification-tokens';
import type { User } from '@sched/db/queries/users';
import { ConflictError, ForbiddenError } from '@sched/kit/errors';
import { randomToken, sha256Hex } from '@sched/kit/secrets';
import { linkMessage } from './link-mail.ts';
import { sendThroughOutbox } from '@sched/runtime/mail-delivery';
import { enforceLimit } from '@sched/runtime/rate-limit';
import type { AccountDeps } from './deps.ts';
import { ACCOUNT_PATHS, tokenLink } from './paths.ts';

/**
 * E-mail verification. The link carries a random 256-bit token; the table
 * `email_verification_tokens` keeps only its SHA-256 for 24 hours; using it is single use, and a
 * new link voids the older ones. Used by the sign-up pages, `POST /v2/me/verification-email` and
 * the settings account page's resend button.
 */
export const EMAIL_VERIFICATION_TTL_SECONDS = 24 * 60 * 60;

/** New links a user may ask for (API and settings button together). */

export const VERIFY_FIRST_MESSAGE = 'Verify your e-mail address first';

/** Writes a new link (voiding older ones) and sends it through the outbox. */
export async function sendVerificationEmail(deps: AccountDeps, user: User): Promise<void> {
  const token = randomToken(32);
  await insertEmailVerificationToken(deps.stores.db.knex, {
    userId: user.id,
    email: user.email,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(Date.now() + EMAIL_VERIFICATION_TTL_SECONDS * 1000),
  });
  const link = tokenLink(deps.config.appUrl, ACCOUNT_PATHS.verifyEmail, token);
  await sendThroughOutbox(
    deps,
    linkMessage(user, {
      subject: 'Verify your email address',
      intro: 'Confirm the email address of your Scheduling account by opening this link:',
      action: 'Verify my email address',
      link,
      fineprint: 'The link works once, for 24 hours. If you did not create an account, ignore this message.',
    }),
  );
}

/**
 * A new verification link for `user` (the API's `POST /v2/me/verification-email` and the settings
 * account page's button): 409 ConflictError when the address is verified already, 429
 * RateLimitedError (Retry-After) past the `verification-resend` limit per user, counted in the token store so both
 * surfaces and every replica count together. The new link voids the older ones.
 */
export async function resendVerification(deps: AccountDeps, user: User): Promise<void> {
  if (user.emailVerifiedAt) throw new ConflictError('Your e-mail address is already verified');
  await enforceLimit(
    deps.stores.tokenStore,
    `verification-email:user:${user.id}`,
    deps.config.rateLimits['verification-resend'],
    'verification e-mails requested',
  );
  await sendVerificationEmail(deps, user);
}

/**
 * What an unverified account may not do (create OAuth clients or API keys): 403 with
 * VERIFY_FIRST_MESSAGE. Signing in, onboarding and consent stay open.
 */
export function assertEmailVerified(user: Pick<User, 'emailVerifiedAt'>): void {
  if (!user.emailVerifiedAt) throw new ForbiddenError(VERIFY_FIRST_MESSAGE);
}
