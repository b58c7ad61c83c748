import type { TokenStore } from '@sched/db/token-store/types';
import { type GrantIds, ownerVersionKeys } from './grants.ts';

/** One lookup to make: the token the API would receive and the versions it reads with it. */
export interface Target {
  token: string;
  versionKeys: readonly string[];
  /** Whether the store holds it (a live grant's access token) or not (an unknown token). */
  exists: boolean;
}

export interface LookupFigures {
  p50Us: number;
  p99Us: number;
  /** This process's CPU (user + system) per lookup. */
  cpuUsPerLookup: number;
  lookupsPerSecond: number;
}

/**
 * `count` lookups of random live access tokens (grants 0 .. size - 1), or of tokens of the same
 * shape the store does not hold (grants from `size` on). Made before the timing starts: hashing
 * ids is not the lookup's cost.
 */
export function targetsOf(
  idsOf: (index: number) => GrantIds,
  size: number,
  count: number,
  exists: boolean,
): Target[] {
  return Array.from({ length: count }, (_, n) => {
    const ids = idsOf(exists ? Math.floor(Math.random() * size) : size + n);
    return { token: ids.accessTokenId, versionKeys: ownerVersionKeys(ids), exists };
  });
}

/**
 * The API's read per request (`findWithVersions('AccessToken', token, [user:<id>, client:<id>])`,
 * services/api/src/auth/authenticate.ts) for every target, `concurrency` at a time. Throws when a
 * live token is not found or an unknown one is: the figures would describe another path.
 */
export async function timeLookups(
  store: TokenStore,
  targets: readonly Target[],
  concurrency: number,
): Promise<LookupFigures> {
  const latencies = new Float64Array(targets.length);
  let next = 0;
  let wrong = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < targets.length) {
        const at = next++;
        const target = targets[at]!;
        const t0 = performance.now();
        const { record } = await store.findWithVersions('AccessToken', target.token, target.versionKeys);
        latencies[at] = performance.now() - t0;
        if ((record !== undefined) !== target.exists) wrong++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (wrong > 0) throw new Error(`${wrong} of ${targets.length} lookups found the wrong thing`);
  latencies.sort();
  const percentile = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]! * 10_000) / 10;
  return {
    p50Us: percentile(0.5),
    p99Us: percentile(0.99),
    cpuUsPerLookup: Math.round(((used.user + used.system) / targets.length) * 10) / 10,
    lookupsPerSecond: Math.round((targets.length / elapsedMs) * 1000),
  };
}
