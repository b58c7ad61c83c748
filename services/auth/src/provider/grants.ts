import { hasConsent, recordGrantFromRememberedConsent } from '@sched/db/queries/consents';
import { userAuditContext } from '../http/audit-context.ts';
import type { Knex } from 'knex';
import type Provider from 'oidc-provider';
import type { Grant, KoaContextWithOIDC } from 'oidc-provider';
import type { ClientLoader } from './clients.ts';
import { scopesUserCannotGrant } from './grant-permissions.ts';
import { requestedResources } from './resources.ts';
import { scopeList } from './scopes.ts';
import { accumulatedScope, grantableScopes } from './step-up.ts';

/**
 * Grants: one per authorization (never shared between authorizations of the same browser), with
 * `legacy` recorded when it is created, so tokens refreshed later keep the status their
 * authorization had (tokens issued before a client's migration stay unchecked until the
 * user authorizes again).
 */
type LegacyAwareGrant = Grant & { legacy?: boolean };

/** Adds `legacy` to what a Grant record stores. Call once, right after creating the provider. */
export function storeLegacyFlagOnGrants(provider: Provider): void {
  const Grant = provider.Grant as unknown as { IN_PAYLOAD: string[] };
  const stored = [...Grant.IN_PAYLOAD, 'legacy'];
  Object.defineProperty(Grant, 'IN_PAYLOAD', { configurable: true, get: () => stored });
}

/**
 * A grant of `scope`. With `resources` (RFC 8707 indicators of the request), the scopes are
 * granted for each of them too: a token for a resource carries its scopes from there.
 */
export async function createGrant(
  provider: Provider,
  input: {
    accountId: string;
    clientId: string;
    scope: string;
    legacy: boolean;
    resources?: readonly string[];
  },
): Promise<LegacyAwareGrant> {
  const grant: LegacyAwareGrant = new provider.Grant({
    accountId: input.accountId,
    clientId: input.clientId,
  });
  grant.addOIDCScope(input.scope);
  for (const resource of input.resources ?? []) grant.addResourceScope(resource, input.scope);
  grant.legacy = input.legacy;
  await grant.save();
  return grant;
}

/** `legacy` of the grant a token is being issued from (false when unknown: the strict side). */
export function grantIsLegacy(ctx: KoaContextWithOIDC | undefined): boolean {
  const grant = ctx?.oidc?.entities.Grant as LegacyAwareGrant | undefined;
  return grant?.legacy === true;
}

/**
 * oidc-provider's `loadExistingGrant`: the grant the consent step just created, or, when the signed-in
 * user has already allowed this client every requested scope (remembered consent), a new grant
 * made on the spot so no second prompt appears (audited as `grant.created`). Otherwise none: the consent prompt follows.
 */
export function loadExistingGrant(knex: Knex, loadClient: ClientLoader, pendingScopes: readonly string[]) {
  return async function load(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
    const { provider } = ctx.oidc;
    const consentGrantId = ctx.oidc.result?.consent?.grantId;
    if (consentGrantId) return provider.Grant.find(consentGrantId);

    const accountId = ctx.oidc.session?.accountId;
    const client = ctx.oidc.client;
    if (!accountId || !client) return undefined;
    const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
    const requested = typeof params.scope === 'string' ? params.scope : '';
    if (!(await hasConsent(knex, Number(accountId), client.clientId, scopeList(requested)))) return undefined;
    // Remembered consent does not outlive the memberships it needed: the consent step refuses then.
    if ((await scopesUserCannotGrant(knex, Number(accountId), requested)).length > 0) return undefined;
    const record = await loadClient(ctx.state as Record<string, unknown>, client.clientId);
    if (!record) return undefined;
    const scope = await accumulatedScope(knex, {
      userId: Number(accountId),
      clientId: client.clientId,
      clientScopes: grantableScopes(record, pendingScopes),
      params,
    });
    // The code carries the requested scopes that the grant holds: the widened ones with it.
    if (scope !== requested) (ctx.oidc.params as Record<string, unknown>).scope = scope;
    const grant = await createGrant(provider, {
      accountId,
      clientId: client.clientId,
      scope,
      legacy: record.isLegacy,
      resources: requestedResources(params),
    });
    const userId = Number(accountId);
    await recordGrantFromRememberedConsent(
      knex,
      userAuditContext(ctx, userId),
      userId,
      client.clientId,
      scopeList(scope),
    );
    return grant;
  };
}
