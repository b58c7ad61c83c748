import { listClientsByReviewStatus } from '@sched/db/queries/oauth-client-management';
import { type ClientReviewStatus, type OAuthClient, setReviewStatus } from '@sched/db/queries/oauth-clients';
import { recordAgentClient } from '@sched/db/queries/agent-clients';
import { isWellFormedClientId } from '@sched/db/queries/oauth-clients';
import { BadRequestError, ConflictError, ForbiddenError } from '@sched/kit/errors';
import { APPROVED_AGENT_SCOPES, isDocumentClientId } from '@sched/policy/agent-clients';
import { approveClient, rejectClient } from '@sched/policy/client-review';
import type { Runtime } from '@sched/runtime/runtime';
import { auditClient } from './audit.ts';
import { withLockedClient } from './locked.ts';
import type { Actor } from './rights.ts';
import { type QueuedMail, queueReviewMail, sendQueued } from './review-mail.ts';

/**
 * The admin review: service administrators approve or reject PENDING clients (the state machine is
 * `@sched/policy/client-review`); each decision is audited and e-mailed to the owner.
 */

export const ADMIN_ONLY = 'Only service administrators may review OAuth clients';

function requireAdmin(actor: Actor): void {
  if (!actor.serviceAdmin) throw new ForbiddenError(ADMIN_ONLY);
}

/** The review queue: clients by status (all when omitted), oldest first. */
export async function listForReview(
  deps: Runtime,
  actor: Actor,
  options: { status?: ClientReviewStatus; skip: number; take: number },
): Promise<OAuthClient[]> {
  requireAdmin(actor);
  return listClientsByReviewStatus(deps.stores.db.knex, options);
}

type Decision = { kind: 'approved' } | { kind: 'rejected'; reason: string };

async function decide(
  deps: Runtime,
  actor: Actor,
  clientId: string,
  decision: Decision,
): Promise<OAuthClient> {
  requireAdmin(actor);
  const { client, mail } = await withLockedClient(deps, clientId, async (trx, current, bumper) => {
    let queued: QueuedMail | null;
    let changed: OAuthClient | null;
    if (decision.kind === 'approved') {
      const result = approveClient(current.reviewStatus);
      if (!result.ok) throw new ConflictError(result.reason);
      changed = await setReviewStatus(trx, bumper, current.id, result.status, {
        reviewedByUserId: actor.userId,
      });
      await auditClient(
        trx,
        actor,
        'oauth_client.approved',
        current.id,
        {
          from: current.reviewStatus,
          to: result.status,
        },
        {
          organizationId: current.organizationId,
          before: { reviewStatus: current.reviewStatus },
          after: { reviewStatus: result.status },
        },
      );
      queued = await queueReviewMail(trx, deps, changed!, { kind: 'approved' });
    } else {
      const result = rejectClient(current.reviewStatus, decision.reason);
      if (!result.ok) throw new ConflictError(result.reason);
      changed = await setReviewStatus(trx, bumper, current.id, result.status, {
        rejectionReason: result.rejectionReason,
        reviewedByUserId: actor.userId,
      });
      await auditClient(
        trx,
        actor,
        'oauth_client.rejected',
        current.id,
        {
          from: current.reviewStatus,
          to: result.status,
          reason: result.rejectionReason,
        },
        {
          organizationId: current.organizationId,
          before: { reviewStatus: current.reviewStatus },
          after: { reviewStatus: result.status, rejectionReason: result.rejectionReason },
        },
      );
      queued = await queueReviewMail(trx, deps, changed!, {
        kind: 'rejected',
        reason: result.rejectionReason,
      });
    }
    return { client: changed!, mail: queued };
  });
  await sendQueued(deps, mail);
  return client;
}

/**
 * PENDING -> APPROVED (409 otherwise); e-mails the owner. The URL of an agent's metadata document
 * may be approved before the agent was ever used (AGENT_CLIENTS=approved-only): it is recorded
 * first, named after its host until its document is read.
 */
export async function approve(deps: Runtime, actor: Actor, clientId: string): Promise<OAuthClient> {
  requireAdmin(actor);
  if (isDocumentClientId(clientId)) await recordAgentBeforeFirstUse(deps, clientId);
  return decide(deps, actor, clientId, { kind: 'approved' });
}

/**
 * PENDING -> REJECTED with a reason (already validated: trimmed, 1–2000 characters); e-mails the
 * owner. A pending agent may hold tokens (within its ceiling): every token of the client ends.
 */
export async function reject(deps: Runtime, actor: Actor, clientId: string, reason: string) {
  const client = await decide(deps, actor, clientId, { kind: 'rejected', reason });
  await deps.stores.tokenStore.revokeByClient(client.id);
  return client;
}

async function recordAgentBeforeFirstUse(deps: Runtime, clientId: string): Promise<void> {
  const url = URL.parse(clientId);
  const usable = url?.protocol === 'https:' && url.hash === '' && url.username === '';
  if (!url || !usable || !isWellFormedClientId(clientId))
    throw new BadRequestError('clientId is not a valid client metadata document URL');
  await recordAgentClient(deps.stores.db.knex, deps.stores.tokenStore, {
    id: clientId,
    registration: 'metadata_document',
    name: url.host,
    redirectUris: [],
    scopes: [...APPROVED_AGENT_SCOPES],
    reviewStatus: 'PENDING',
  });
}
