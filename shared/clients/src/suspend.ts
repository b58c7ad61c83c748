import { setReviewStatus } from '@sched/db/queries/oauth-clients';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { ConflictError, ForbiddenError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import { auditClient } from './audit.ts';
import { withLockedClient } from './locked.ts';
import type { Actor } from './rights.ts';

export const SUSPEND_ADMIN_ONLY = 'Only service administrators may suspend OAuth clients';

/**
 * Suspends an APPROVED client (service administrators, the admin console): it goes back to PENDING
 * review, audited as `oauth_client.suspended` with the reason, and every grant and token of it ends
 * at once (`revokeByClient`, after the commit). Like any pending client it cannot authorize or
 * exchange until approved again (`approve` of ./review.ts). 409 when it is not approved.
 */
export async function suspendClient(
  deps: Runtime,
  actor: Actor,
  clientId: string,
  reason: string,
): Promise<{ client: OAuthClient; revoked: number }> {
  if (!actor.serviceAdmin) throw new ForbiddenError(SUSPEND_ADMIN_ONLY);
  const client = await withLockedClient(deps, clientId, async (trx, current, bumper) => {
    if (current.reviewStatus !== 'APPROVED')
      throw new ConflictError(`Only an approved client can be suspended (client is ${current.reviewStatus})`);
    const changed = await setReviewStatus(trx, bumper, current.id, 'PENDING');
    await auditClient(
      trx,
      actor,
      'oauth_client.suspended',
      current.id,
      { from: current.reviewStatus, to: 'PENDING', reason },
      {
        organizationId: current.organizationId,
        before: { reviewStatus: current.reviewStatus },
        after: { reviewStatus: 'PENDING' },
      },
    );
    return changed!;
  });
  // The status change is committed and its version bumped: no new authorization or exchange. Now
  // every grant, access and refresh token of the client goes.
  const revoked = await deps.stores.tokenStore.revokeByClient(clientId);
  return { client, revoked };
}
