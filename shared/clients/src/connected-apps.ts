import { type AuditContext, recordAuditEvent } from '@sched/db/queries/audit-log';
import { forgetConsent, listConsentedClients } from '@sched/db/queries/consents';
import { findClientOrganizationId, isWellFormedClientId } from '@sched/db/queries/oauth-clients';
import { NotFoundError } from '@sched/kit/errors';
import { isKnownScope } from '@sched/policy/scopes';
import type { Runtime } from '@sched/runtime/runtime';
import { auditClient } from './audit.ts';
import { type Actor, clientFor } from './rights.ts';

/**
 * Connected apps and revocation through the token store's owner index (docs/token-store.md "Owner
 * index"): one store operation ends every grant, code, access and refresh token of a user for a
 * client, of a client, or of a user. The API reads every access token from the store on every
 * request, so the next request in any process is refused; the token endpoint finds the refresh
 * token gone (`invalid_grant`).
 */

export interface ConnectedApp {
  clientId: string;
  name: string;
  logo: string | null;
  websiteUrl: string | null;
  /** What the user allowed: the remembered consent and the scopes of live grants, sorted. */
  scopes: string[];
  /** The first authorization still remembered (consent or live grant). */
  grantedAt: Date;
  /** The last time the app was issued a grant, code or token for the user; null when none is live. */
  lastUsedAt: Date | null;
}

export const CONNECTED_APP_NOT_FOUND = 'Connected app not found';

/** The user's connected apps: clients with a remembered consent or live tokens, by name. */
export async function listConnectedApps(deps: Runtime, userId: number): Promise<ConnectedApp[]> {
  const grants = await deps.stores.tokenStore.listGrantsOfUser(String(userId));
  const byClient = new Map(grants.map((grant) => [grant.clientId, grant]));
  const clients = await listConsentedClients(deps.stores.db.knex, userId, [...byClient.keys()]);
  return clients.map((client) => {
    const live = byClient.get(client.clientId);
    const scopes = new Set(client.scopes);
    for (const scope of live?.scopes ?? []) if (isKnownScope(scope)) scopes.add(scope);
    const consentedAt = client.consented ? client.createdAt.getTime() : Number.POSITIVE_INFINITY;
    const grantedAt = Math.min(consentedAt, live ? live.firstGrantedAt * 1000 : Number.POSITIVE_INFINITY);
    return {
      clientId: client.clientId,
      name: client.name,
      logo: client.logo,
      websiteUrl: client.websiteUrl,
      scopes: [...scopes].sort(),
      grantedAt: new Date(Number.isFinite(grantedAt) ? grantedAt : Date.now()),
      lastUsedAt: live ? new Date(live.lastIssuedAt * 1000) : null,
    };
  });
}

/**
 * Disconnects an app: forgets the remembered consent (the next authorization asks again), then
 * ends every grant, code, access and refresh token of the user for the client. 404 when the user
 * has neither a consent nor a token of the client (or the client is unknown).
 */
export async function disconnectApp(
  deps: Runtime,
  userId: number,
  clientId: string,
  audit?: AuditContext,
): Promise<{ revoked: number }> {
  if (!isWellFormedClientId(clientId)) throw new NotFoundError(CONNECTED_APP_NOT_FOUND);
  const knex = deps.stores.db.knex;
  // A client of an organization: the disconnection is in that organization's log as well.
  const organizationId = await findClientOrganizationId(knex, clientId);
  const event = (hadConsent: boolean) => ({
    action: 'connected_app.revoked',
    targetType: 'oauth_client',
    targetId: clientId,
    organizationId,
    before: { userId, consent: hadConsent },
    after: { userId, consent: false, tokens: 'revoked' },
  });
  // Consent first: an authorization arriving meanwhile then asks again instead of reusing it. The
  // consent goes with its audit event, in one transaction.
  const hadConsent = await knex.transaction(async (trx) => {
    const had = await forgetConsent(trx, userId, clientId);
    if (had) await recordAuditEvent(trx, audit, event(true));
    return had;
  });
  const revoked = await deps.stores.tokenStore.revokeByUserAndClient(String(userId), clientId);
  if (!hadConsent && revoked === 0) throw new NotFoundError(CONNECTED_APP_NOT_FOUND);
  // Tokens only (no consent row): the change was in the token store, the event follows it.
  if (!hadConsent) await recordAuditEvent(knex, audit, event(false));
  return { revoked };
}

/**
 * Ends every token of the client, of every user (after a leak): its owner, an admin or owner of its
 * organization, or a service administrator (`clientFor(..., 'manage')`: 404 for who cannot see the
 * client, 403 for who can only see it). Remembered consents stay. Audited.
 */
export async function revokeClientTokens(deps: Runtime, actor: Actor, clientId: string): Promise<number> {
  const knex = deps.stores.db.knex;
  const client = await clientFor(knex, actor, clientId, 'manage');
  const revoked = await deps.stores.tokenStore.revokeByClient(client.id);
  // The tokens live in the token store: the event follows the revocation (no transaction to share).
  await auditClient(
    knex,
    actor,
    'oauth_client.tokens_revoked',
    client.id,
    { revoked },
    {
      organizationId: client.organizationId,
    },
  );
  return revoked;
}
