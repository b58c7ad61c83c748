import { resendVerification } from '@sched/accounts/verification';
import { findUserById } from '@sched/db/queries/users';
import { UnauthorizedError } from '@sched/kit/errors';
import { z } from 'zod';
import { named } from '../../openapi/named.ts';
import { defineRoute } from '../../routing/route.ts';

// No scope: with any OAuth token (a legacy client's included) this is a 403, so a third-party app
// cannot make the service mail its users.
export const sendVerificationEmailRoute = defineRoute({
  method: 'POST',
  path: '/me/verification-email',
  summary: "Sends a new verification link to the caller's e-mail address (older links stop working)",
  description:
    'The link works once, for 24 hours. 409 when the address is verified already; 429 (with ' +
    'Retry-After) past 5 requests an hour per user, counted together with the settings page button.',
  tags: ['Me'],
  auth: 'user',
  response: {
    status: 202,
    description: 'The e-mail is on its way (through the mail outbox)',
    schema: named('VerificationEmailSent', z.null().meta({ description: 'nothing more to say' }), null),
    errors: {
      409: 'The address is verified already',
      429: 'More than 5 in an hour for the user (`Retry-After`), counted with the settings page button',
    },
  },
  handler: async ({ caller, deps }) => {
    const user = await findUserById(deps.stores.db.knex, caller.userId);
    if (!user) throw new UnauthorizedError('The user of this credential no longer exists');
    await resendVerification(deps, user);
    return { status: 202, data: null };
  },
});
