import type { MembershipFact } from '@sched/db/queries/access-facts';
import type { AccessDecision, AccessRequirement } from '@sched/policy/access';

/**
 * Who is calling and how. Built by the authentication middleware, read by policy checks and
 * handlers. One type for every credential so handlers never look at headers.
 */
export type Caller =
  | {
      kind: 'api-key';
      userId: number;
      serviceAdmin: boolean;
      apiKeyId: number;
    }
  | {
      kind: 'oauth';
      userId: number;
      serviceAdmin: boolean;
      clientId: string;
      /** Granted scopes of the access token. */
      scopes: readonly string[];
      /** Issued to a legacy client: scopes are not enforced. */
      legacy: boolean;
    }
  | {
      /** Deprecated managed-user routes: the `x-svc-secret-key` header proved this client. */
      kind: 'client-secret';
      clientId: string;
    };

export type UserCaller = Extract<Caller, { userId: number }>;

/**
 * What an organization or team route was authorized on (routes that declare `access`). For a
 * team route, `organization` is the organization owning the team (null for a team outside any).
 */
export interface AccessContext {
  requirement: AccessRequirement;
  organization: { id: number; pbacEnabled: boolean } | null;
  team: { id: number; organizationId: number | null } | null;
  /** The caller's membership of `organization` (accepted or not), with its custom role's permissions. */
  orgMembership: MembershipFact | null;
  /** The caller's membership of `team` (team routes only). */
  teamMembership: MembershipFact | null;
  decision: AccessDecision;
}
