import { randomBytes } from 'node:crypto';
import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import { taggedTokenId } from '@sched/db/token-store/keys';
import type { RecordWrite, TokenPayload } from '@sched/db/token-store/types';
import { countGrant } from '@sched/kit/metrics';
import {
  type ProtectedResource,
  protectedResources,
  type ResourceName,
  resourceNamed,
} from '@sched/policy/protected-resources';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import type { DeferredWrites } from '../provider/adapter.ts';
import { isResourceScope } from '../provider/resources.ts';
import { withoutInternalScopes } from '../provider/scopes.ts';
import type { TokenAnswer } from './refresh-window.ts';

/**
 * The refresh grant with rotation, run by us instead of oidc-provider for the usual request: the
 * provider's run of it re-reads the body, authenticates the client a second time and builds a
 * Koa context and four model objects, about a third of a refresh's CPU and allocation (issue 22,
 * docs/performance.md "Our own refresh grant"). The tokens it issues are the ones oidc-provider
 * issues: the same records, fields and lifetimes (test/auth/refresh-grant.test.ts compares the
 * two field by field), written by the endpoint's one atomic settle step as before.
 *
 * Anything out of the ordinary returns `undefined` before anything is written, and oidc-provider
 * runs the grant as it always did and gives its own answer: a refresh token used, expired, of
 * another client or bound to a key or a session; a grant or account gone; a `resource` or
 * client assertion in the request; `openid` granted (an ID token is signed then); an agent known
 * by its metadata document. Only the plain success is ours.
 */

/** `false` hands every refresh to oidc-provider (tests compare both; a way back after an upgrade). */
export const ownRefreshGrant = { enabled: true };

/** The grant's tokens and answer; the caller settles `writes` and answers `answer`. */
export interface RefreshIssued {
  answer: TokenAnswer;
  writes: DeferredWrites;
}

/** What oidc-provider's refresh grant refuses or treats specially: it runs the grant then. */
const PROVIDER_ONLY_FIELDS = ['consumed', 'x5t#S256', 'jkt', 'attestationJkt', 'rar'] as const;

/** Request headers that ask oidc-provider for client attestation or DPoP handling. */
const PROVIDER_ONLY_HEADERS = ['oauth-client-attestation', 'oauth-client-attestation-pop', 'dpop'] as const;

const epochNow = () => Math.floor(Date.now() / 1000);

/** oidc-provider's opaque token value: 256 random bits, base64url, its grant's hash tag appended. */
const newTokenId = (grantId: string) => taggedTokenId(randomBytes(32).toString('base64url'), grantId);

/** A refresh token record oidc-provider would accept as it stands, with nothing for it to decide. */
function plainRecord(record: TokenPayload | undefined, clientId: string, now: number): boolean {
  if (record === undefined || record.kind !== 'RefreshToken' || record.clientId !== clientId) return false;
  if (typeof record.exp !== 'number' || record.exp <= now || typeof record.iat !== 'number') return false;
  if (typeof record.grantId !== 'string' || typeof record.accountId !== 'string') return false;
  if (typeof record.scope !== 'string' || record.scope.split(' ').includes('openid')) return false;
  // A token that ends with its browser session needs the session checked (oidc-provider does it).
  if (record.expiresWithSession === true) return false;
  return PROVIDER_ONLY_FIELDS.every((field) => record[field] === undefined);
}

/**
 * The token's one resource (its audience), when it names one of ours; `null` for a token without
 * resource; `undefined` when oidc-provider must decide (several, or one it would refuse).
 */
function grantedResource(
  resources: Record<ResourceName, ProtectedResource>,
  record: TokenPayload,
): ProtectedResource | null | undefined {
  const resource = record.resource;
  if (resource === undefined || resource === null || (Array.isArray(resource) && resource.length === 0))
    return null;
  if (typeof resource !== 'string') return undefined;
  return resourceNamed(resources, resource) ?? undefined;
}

export function refreshGrant(deps: AuthDeps) {
  const { provider } = deps;
  const { tokenTtl, baseUrl } = deps.runtime.config;
  const resources = protectedResources(baseUrl);

  /**
   * The success of a refresh of `refreshToken` (its `record` as read) by `client`, already
   * authenticated and approved, or `undefined` for oidc-provider to run the grant.
   */
  return async function ownRefresh(
    ctx: Context,
    client: OAuthClientWithSecrets,
    refreshToken: string,
    record: TokenPayload | undefined,
    params: Record<string, unknown>,
  ): Promise<RefreshIssued | undefined> {
    if (!ownRefreshGrant.enabled) return undefined;
    const now = epochNow();
    if (!record || !plainRecord(record, client.id, now)) return undefined;
    if (params.resource !== undefined || params.client_assertion !== undefined) return undefined;
    if (PROVIDER_ONLY_HEADERS.some((name) => ctx.get(name) !== '')) return undefined;
    const resource = grantedResource(resources, record);
    if (resource === undefined) return undefined;

    // Every client of our directory may refresh (`clientMetadata` in clients.ts); an agent known by
    // its metadata document is oidc-provider's (its document says which grants it may use). Not
    // `provider.Client.find`: outside the provider's own routes it has no request to remember the
    // client in, and would read the client's version from the store again.
    if (client.registration === 'metadata_document') return undefined;
    const clientId = client.id;
    const grantId = record.grantId as string;
    const accountId = record.accountId as string;
    const grant = await provider.Grant.find(grantId, { ignoreExpiration: true });
    if (!grant || grant.isExpired || grant.clientId !== clientId || grant.accountId !== accountId)
      return undefined;
    if ((grant as { rejected?: unknown }).rejected !== undefined) return undefined;
    const account = await deps.findAccount(ctx, accountId, record);
    if (!account) return undefined;

    // The rotated refresh token: the old one's fields, a new id and lifetime, one rotation more.
    const gty =
      typeof record.gty === 'string' && !record.gty.endsWith('refresh_token')
        ? `${record.gty} refresh_token`
        : record.gty;
    const rotated: TokenPayload = {
      ...record,
      iat: now,
      exp: now + tokenTtl.refreshToken,
      jti: newTokenId(grantId),
      gty,
      rotations: typeof record.rotations === 'number' ? record.rotations + 1 : 1,
      // The chain's first issue time; oidc-provider starts it afresh for a token that lacks one.
      iiat: typeof record.iiat === 'number' ? record.iiat : now,
    };
    const scopes = new Set((record.scope as string).split(' '));
    const scope = resource
      ? grant.getResourceScopeFiltered(
          resource.identifier,
          [...scopes].filter((value) => isResourceScope(value)),
        )
      : grant.getOIDCScopeFiltered(scopes);
    // What clients and the resource API see: without the internal no-scope marker (adapter.ts).
    const visibleScope = withoutInternalScopes(scope);
    const access: TokenPayload = {
      iat: now,
      exp: now + tokenTtl.accessToken,
      accountId: account.accountId,
      clientId,
      expiresWithSession: record.expiresWithSession,
      grantId,
      gty,
      sessionUid: record.sessionUid,
      sid: record.sid,
      kind: 'AccessToken',
      jti: newTokenId(grantId),
      scope: visibleScope,
      ...(resource ? { aud: resource.identifier } : { claims: record.claims }),
      extra: { legacy: (grant as { legacy?: boolean }).legacy === true },
    };
    countGrant('refresh_token', 'success');
    return {
      answer: {
        access_token: access.jti as string,
        refresh_token: rotated.jti,
        token_type: 'bearer',
        expires_in: tokenTtl.accessToken,
        scope: visibleScope,
      },
      writes: {
        consume: { model: 'RefreshToken', id: refreshToken },
        writes: [
          write('RefreshToken', rotated, tokenTtl.refreshToken),
          write('AccessToken', access, tokenTtl.accessToken),
        ],
      },
    };
  };
}

/** A record as oidc-provider's save writes it: fields left undefined are not stored. */
function write(model: string, payload: TokenPayload, expiresInSeconds: number): RecordWrite {
  const stored: TokenPayload = {};
  for (const key of Object.keys(payload)) if (payload[key] !== undefined) stored[key] = payload[key];
  return { model, id: payload.jti as string, payload: stored, expiresInSeconds };
}
