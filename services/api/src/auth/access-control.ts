import {
  type ProtectedResource,
  protectedResources,
  type ResourceName,
} from '@sched/policy/protected-resources';
import { type AccessFacts, findUserAccessFacts } from '@sched/db/queries/access-facts';
import { findOAuthClient } from '@sched/db/queries/oauth-clients';
import type { Runtime } from '@sched/runtime/runtime';
import { createRouteCache, MAX_AGE_MS, type RouteCache } from '../cache/route-cache.ts';
import { BoundedMap, UNKNOWN_VERSION, VersionedCache } from '@sched/kit/versioned-cache';

export type { RouteCache };

/** What the API-key cache holds for one key (by the SHA-256 of the key). */
export interface ApiKeyEntry {
  apiKeyId: number;
  userId: number;
  serviceAdmin: boolean;
}

export interface UserFacts {
  serviceAdmin: boolean;
  /** A disabled account's access tokens are refused (read with the same row, tagged `user:<id>`). */
  disabled: boolean;
}

/** What never changes about an access token, kept to save work on its next use. */
export interface TokenOwner {
  userId: number;
  clientId: string;
  /** `user:<id>` and `client:<id>`: read with the token next time. */
  versionKeys: readonly [string, string];
  /** The record's `scope` string, and the scopes parsed from it. */
  scope: string;
  scopes: readonly string[];
}

/**
 * The per-app state of authentication and authorization: in-process caches whose entries are
 * validated against the invalidation versions read with the credential (one token-store round
 * trip per request). One instance per Koa app, so two apps in one process behave like two
 * processes (tests rely on that).
 */
export interface AccessControl {
  deps: Runtime;
  /** sha256(API key) -> key and owner; tagged with `user:<id>`. */
  apiKeys: VersionedCache<ApiKeyEntry>;
  /** user id -> service-admin flag; tagged with `user:<id>`. */
  users: VersionedCache<UserFacts>;
  /**
   * access token -> its user, client and scopes (never change), so the next read of the token can
   * include `user:<id>` and `client:<id>` in the same round trip, and its scopes need no parsing.
   */
  tokenOwners: BoundedMap<TokenOwner>;
  /** team id -> organization id or null (a team never moves). */
  teamOrganizations: BoundedMap<number | null>;
  /** `<userId>:<orgId>:<teamId>` -> access facts; tagged with `org:<id>` and/or `team:<id>`. */
  facts: VersionedCache<AccessFacts>;
  /** API key id -> when its last_used_at was last written (ms), to write at most once a minute. */
  apiKeyTouches: Map<number, number>;
  /**
   * The user's facts: from the cache (synchronously) when `version` (of `user:<id>`, read this
   * request) matches, else a promise of the database's answer.
   */
  userFacts(userId: number, version: number | undefined): UserFacts | Promise<UserFacts | null>;
  /**
   * Whether the OAuth client still exists (a deleted client's tokens stop working at once):
   * `true` from the cache when `version` (of `client:<id>`, read this request) matches, else a
   * promise of the database's answer.
   */
  clientExists(clientId: string, version: number | undefined): true | Promise<boolean>;
  /** Named caches for handlers (`RouteCache`). */
  routeCache: RouteCache;
  /** The two protected resources (audiences) of BASE_URL: /v2 and /mcp. */
  resources: Record<ResourceName, ProtectedResource>;
}

export function createAccessControl(deps: Runtime): AccessControl {
  const users = new VersionedCache<UserFacts>({ max: 20_000, maxAgeMs: MAX_AGE_MS });
  const clients = new VersionedCache<boolean>({ max: 20_000, maxAgeMs: MAX_AGE_MS });
  return {
    deps,
    apiKeys: new VersionedCache({ max: 20_000, maxAgeMs: MAX_AGE_MS }),
    users,
    tokenOwners: new BoundedMap(50_000),
    teamOrganizations: new BoundedMap(50_000),
    facts: new VersionedCache({ max: 50_000, maxAgeMs: MAX_AGE_MS }),
    apiKeyTouches: new Map(),
    routeCache: createRouteCache(),
    resources: protectedResources(deps.config.baseUrl),
    userFacts(userId, version) {
      const key = String(userId);
      const hit = version === undefined ? undefined : users.get(key, [version]);
      if (hit) return hit;
      return findUserAccessFacts(deps.stores.db.knex, userId).then((facts) => {
        if (facts) users.set(key, facts, [version ?? UNKNOWN_VERSION]);
        else users.delete(key);
        return facts;
      });
    },
    clientExists(clientId, version) {
      if (version !== undefined && clients.get(clientId, [version])) return true;
      return findOAuthClient(deps.stores.db.knex, clientId).then((client) => {
        // Only "exists" is cached: a deleted client never comes back under the same id.
        if (client !== null) clients.set(clientId, true, [version ?? UNKNOWN_VERSION]);
        else clients.delete(clientId);
        return client !== null;
      });
    },
  };
}
