import { insertEmailVerificationToken } from '@sched/db/queries/email-verification-tokens';
import type { User } from '@sched/db/queries/users';
import { randomToken, sha256Hex } from '@sched/kit/secrets';
import { sendThroughOutbox } from '@sched/runtime/mail-delivery';
import type { AuthDeps } from '../deps.ts';
import { html } from '../pages/html.ts';
import { PATHS } from '../paths.ts';

/**
 * E-mail verification links. The link carries a random 256-bit token; the table
 * `email_verification_tokens` keeps only its SHA-256 for 24 hours, and using it is single-use.
 */
export const EMAIL_VERIFICATION_TTL_SECONDS = 24 * 60 * 60;

export async function sendVerificationEmail(deps: AuthDeps, user: User): Promise<void> {
  const token = randomToken(32);
  await insertEmailVerificationToken(deps.runtime.stores.db.knex, {
    userId: user.id,
    email: user.email,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(Date.now() + EMAIL_VERIFICATION_TTL_SECONDS * 1000),
  });
  const link = `${deps.issuer}${PATHS.verifyEmail}?token=${encodeURIComponent(token)}`;
  const greeting = user.name ? `Hi ${user.name},` : 'Hi,';
  await sendThroughOutbox(deps.runtime, {
    to: user.email,
    subject: 'Verify your email address',
    text: [
      greeting,
      '',
      'Thanks for creating your Scheduling account. Confirm your email address by opening this link:',
      '',
      link,
      '',
      'The link works for 24 hours. If you did not create an account, ignore this message.',
    ].join('\n'),
    html: html`<p>${greeting}</p>
<p>Thanks for creating your Scheduling account. Confirm your email address:</p>
<p><a href="${link}">Verify my email address</a></p>
<p>Or paste this link into your browser:<br>${link}</p>
<p>The link works for 24 hours. If you did not create an account, ignore this message.</p>`.value,
  });
}
