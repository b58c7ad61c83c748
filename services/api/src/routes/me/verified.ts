import { assertEmailVerified } from '@sched/accounts/verification';
import { findUserById } from '@sched/db/queries/users';
import { UnauthorizedError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';

/**
 * Creating OAuth clients and API keys needs a verified e-mail address: 403 `Verify your e-mail
 * address first` otherwise. Read from the database, not a cache, so a link opened a moment ago
 * counts at once.
 */
export async function requireVerifiedEmail(deps: Pick<Runtime, 'stores'>, userId: number): Promise<void> {
  const user = await findUserById(deps.stores.db.knex, userId);
  if (!user) throw new UnauthorizedError('The user of this credential no longer exists');
  assertEmailVerified(user);
}
