import { BoundedMap, VersionedCache } from '@sched/kit/versioned-cache';

/** A cached entry older than this is reloaded even without a version change (safety net). */
export const MAX_AGE_MS = 5 * 60_000;

/**
 * Per-app caches a route may use (handed to `versionKeys` and the handler): versioned caches,
 * validated against versions read with the credential, and maps of facts that never change.
 */
export interface RouteCache {
  versioned<V>(name: string, options?: { max?: number; maxAgeMs?: number }): VersionedCache<V>;
  permanent<V>(name: string, max?: number): BoundedMap<V>;
}

export function createRouteCache(): RouteCache {
  const versioned = new Map<string, VersionedCache<unknown>>();
  const permanent = new Map<string, BoundedMap<unknown>>();
  return {
    versioned<V>(name: string, options: { max?: number; maxAgeMs?: number } = {}) {
      let cache = versioned.get(name);
      if (!cache) {
        cache = new VersionedCache({ max: options.max ?? 20_000, maxAgeMs: options.maxAgeMs ?? MAX_AGE_MS });
        versioned.set(name, cache);
      }
      return cache as VersionedCache<V>;
    },
    permanent<V>(name: string, max = 50_000) {
      let map = permanent.get(name);
      if (!map) {
        map = new BoundedMap(max);
        permanent.set(name, map);
      }
      return map as BoundedMap<V>;
    },
  };
}
