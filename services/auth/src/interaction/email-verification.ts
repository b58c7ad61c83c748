import { sendVerificationEmail as sendLink } from '@sched/accounts/verification';
import type { User } from '@sched/db/queries/users';
import type { AuthDeps } from '../deps.ts';

/**
 * E-mail verification links: `@sched/accounts/verification` (shared with the resource API's
 * `POST /v2/me/verification-email`). One link works once, for 24 hours; a new one voids the older.
 */
export { EMAIL_VERIFICATION_TTL_SECONDS } from '@sched/accounts/verification';

export const sendVerificationEmail = (deps: AuthDeps, user: User): Promise<void> =>
  sendLink(deps.runtime, user);
