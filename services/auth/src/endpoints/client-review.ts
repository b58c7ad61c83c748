import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import type { AgentClientPolicy } from '@sched/kit/config';
import { agentUsable, isAgentRegistration } from '@sched/policy/agent-clients';

/**
 * Why a client may not be used now, or null when it may. Clients registered in settings keep the
 * seed's rule (only APPROVED ones); agent clients follow AGENT_CLIENTS (docs/operators-agents.md):
 * under `review` a PENDING agent may be used within its scope ceiling; `off` refuses them all, as
 * if they did not exist.
 */
export function reviewRefusal(
  client: Pick<OAuthClient, 'registration' | 'reviewStatus'>,
  policy: AgentClientPolicy,
): 'pending' | 'rejected' | 'unknown' | null {
  if (isAgentRegistration(client.registration)) {
    const use = agentUsable(policy, client.reviewStatus);
    if (use.ok) return null;
    return use.reason === 'off' ? 'unknown' : use.reason;
  }
  if (client.reviewStatus === 'PENDING') return 'pending';
  if (client.reviewStatus === 'REJECTED') return 'rejected';
  return null;
}
