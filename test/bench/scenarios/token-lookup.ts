import { execFileSync } from 'node:child_process';
import { openRedis } from '@sched/db/redis';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import type { TokenStore } from '@sched/db/token-store/types';
import { createTestDatabase } from '../../support/database.ts';
import { createTestRedis } from '../../support/redis.ts';
import { choosePinning, type Pinning } from '../load.ts';
import { startPrivateRedis } from '../private-redis.ts';
import { accountRange, CLIENTS, type GrantIds, grantIdsOf } from '../token-lookup/grants.ts';
import { type LookupFigures, targetsOf, timeLookups } from '../token-lookup/lookups.ts';
import {
  checkRedisLayout,
  fillRedis,
  fillUserVersions,
  memoryUsageOfGrantKeys,
  usedMemory,
} from '../token-lookup/redis-fill.ts';
import { checkSqlLayout, fillSql, fillUserVersionsSql, sqlSizes } from '../token-lookup/sql-fill.ts';

/**
 * Issue 18's capacity model: does reading a token per API request cost more with a million live
 * grants than with a thousand, and how many bytes is a grant? For each back end and size, a fresh
 * store (a private redis-server; a new Postgres database) is filled with that many live grants
 * (Grant + access token + refresh token + index entries, as the store writes them: checked against
 * the store's own write path first) and a version counter for each of their users; then the API's
 * read per request (`findWithVersions`) is timed for random live tokens and for unknown ones, one
 * and 32 at a time. Prints latency p50/p99, this
 * process's CPU per lookup, the largest size's ratios to the smallest, Redis bytes per grant and
 * SQL table + index bytes per grant, and one `BENCH_RESULT {json}` line.
 *
 * BENCH_LOOKUP_SIZES (default 1000,1000000), BENCH_LOOKUP_BACKENDS (redis,postgres; pglite too if
 * named), BENCH_LOOKUPS (20000 per measurement). Wall-clock figures mean something only on a quiet
 * machine; CPU per lookup and bytes per grant hold on a loaded one.
 */

const SIZES = (process.env.BENCH_LOOKUP_SIZES ?? '1000,1000000').split(',').map(Number);
const BACKENDS = (process.env.BENCH_LOOKUP_BACKENDS ?? 'redis,postgres').split(',');
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20_000);
const CONCURRENCY = [1, 32];
const WARM_UP = 4_000;
/** Grants whose keys MEMORY USAGE is asked about. */
const MEMORY_SAMPLE = 200;
/** The production key prefix (key length is part of the bytes per grant). */
const REDIS_PREFIX = 'sched:';

type Backend = 'redis' | 'postgres' | 'pglite';

interface Measured extends LookupFigures {
  tokens: 'live' | 'unknown';
  concurrency: number;
}

interface SizeRun {
  backend: Backend;
  size: number;
  fillSeconds: number;
  /** Redis: used_memory growth and MEMORY USAGE per key; SQL: relation sizes; bytes per grant. */
  bytesPerGrant: Record<string, number>;
  lookups: Measured[];
}

/** A filled store and how to end it. */
interface Filled {
  store: TokenStore;
  idsOf: (index: number) => GrantIds;
  fillSeconds: number;
  bytesPerGrant: Record<string, number>;
  close(): Promise<void>;
}

const perGrant = (bytes: number, size: number) => Math.round(bytes / size);

async function fillRedisStore(size: number, pinning: Pinning | null): Promise<Filled> {
  const privateRedis = await startPrivateRedis(pinning);
  let prefix = REDIS_PREFIX;
  let url = privateRedis?.url;
  let dropShared: (() => Promise<void>) | undefined;
  if (!url) {
    const shared = await createTestRedis();
    if (!shared) throw new Error('REDIS_URL is not set');
    console.log('note: no private redis-server: bytes per grant include whatever else writes to REDIS_URL');
    ({ prefix, url } = shared);
    dropShared = shared.drop;
  }
  const redis = await openRedis(url, { connectionName: 'bench-token-lookup' });
  try {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const idsOf = grantIdsOf();
    await checkRedisLayout(redis, idsOf(-1), nowSeconds);
    const before = await usedMemory(redis);
    const t0 = performance.now();
    await fillRedis(redis, prefix, idsOf, size, nowSeconds);
    const fillSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const grown = (await usedMemory(redis)) - before;
    const sample = Array.from({ length: Math.min(MEMORY_SAMPLE, size) }, (_, n) =>
      idsOf(Math.floor((n * size) / Math.min(MEMORY_SAMPLE, size))),
    );
    const keys = await memoryUsageOfGrantKeys(redis, prefix, sample);
    const bytesPerGrant: Record<string, number> = { 'used_memory growth': perGrant(grown, size) };
    for (const [name, bytes] of Object.entries(keys)) bytesPerGrant[`MEMORY USAGE ${name}`] = bytes;
    // After the bytes per grant: the counters are per user, not per grant.
    await fillUserVersions(redis, prefix, accountRange(size));
    const store = createRedisTokenStore({ redis, prefix });
    for (let client = 0; client < CLIENTS; client++)
      await store.bumpVersion(`client:${idsOf(client).clientId}`);
    return {
      store,
      idsOf,
      fillSeconds,
      bytesPerGrant,
      close: async () => {
        if (dropShared) await dropShared();
        redis.disconnect();
        privateRedis?.stop();
      },
    };
  } catch (error) {
    redis.disconnect();
    privateRedis?.stop();
    if (dropShared) await dropShared();
    throw error;
  }
}

async function fillSqlStore(size: number, backend: 'postgres' | 'pglite'): Promise<Filled> {
  const database = await createTestDatabase({ backend });
  try {
    const { knex } = database.db;
    const nowSeconds = Math.floor(Date.now() / 1000);
    const idsOf = grantIdsOf();
    await checkSqlLayout(knex, idsOf(-1), nowSeconds);
    const t0 = performance.now();
    await fillSql(knex, idsOf, size, nowSeconds);
    const fillSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const sizes = await sqlSizes(knex);
    const bytesPerGrant: Record<string, number> = {
      'token_records total': perGrant(sizes.total, size),
      'table (heap)': perGrant(sizes.table, size),
    };
    for (const [name, bytes] of Object.entries(sizes.indexes))
      bytesPerGrant[`index ${name}`] = perGrant(bytes, size);
    await fillUserVersionsSql(knex, accountRange(size));
    const store = createSqlTokenStore({ knex });
    for (let client = 0; client < CLIENTS; client++)
      await store.bumpVersion(`client:${idsOf(client).clientId}`);
    return { store, idsOf, fillSeconds, bytesPerGrant, close: () => database.drop() };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

async function measureSize(backend: Backend, size: number, pinning: Pinning | null): Promise<SizeRun> {
  process.stdout.write(`${backend}, ${size.toLocaleString('en')} grants: filling... `);
  const filled =
    backend === 'redis' ? await fillRedisStore(size, pinning) : await fillSqlStore(size, backend);
  console.log(`${filled.fillSeconds} s`);
  try {
    const targets = (count: number, live: boolean) => targetsOf(filled.idsOf, size, count, live);
    const lookups: Measured[] = [];
    // Warm-up (JIT, connections, caches) with both kinds of token, not counted.
    await timeLookups(filled.store, [...targets(WARM_UP / 2, true), ...targets(WARM_UP / 2, false)], 32);
    for (const live of [true, false]) {
      for (const concurrency of CONCURRENCY) {
        const figures = await timeLookups(filled.store, targets(LOOKUPS, live), concurrency);
        lookups.push({ tokens: live ? 'live' : 'unknown', concurrency, ...figures });
      }
    }
    return { backend, size, fillSeconds: filled.fillSeconds, bytesPerGrant: filled.bytesPerGrant, lookups };
  } finally {
    await filled.close();
  }
}

/** The largest size's figure over the smallest's, per back end, kind of token and concurrency. */
function ratios(runs: SizeRun[]) {
  const out = [];
  for (const backend of new Set(runs.map((run) => run.backend))) {
    const ofBackend = runs.filter((run) => run.backend === backend).sort((a, b) => a.size - b.size);
    const small = ofBackend[0]!;
    const large = ofBackend[ofBackend.length - 1]!;
    if (small === large) continue;
    for (const figures of large.lookups) {
      const base = small.lookups.find(
        (m) => m.tokens === figures.tokens && m.concurrency === figures.concurrency,
      )!;
      const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 100) / 100);
      out.push({
        backend,
        sizes: `${large.size.toLocaleString('en')} / ${small.size.toLocaleString('en')}`,
        tokens: figures.tokens,
        concurrency: figures.concurrency,
        p50: ratio(figures.p50Us, base.p50Us),
        p99: ratio(figures.p99Us, base.p99Us),
        cpu: ratio(figures.cpuUsPerLookup, base.cpuUsPerLookup),
      });
    }
  }
  return out;
}

/** Pins this process (all its threads) to the servers' CPU, the private Redis being on the other. */
function pinSelf(pinning: Pinning | null): void {
  if (!pinning) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', pinning.servers, String(process.pid)], { stdio: 'ignore' });
  } catch {
    // Unpinned figures are still figures; the CPU per lookup does not depend on it.
  }
}

export async function run(): Promise<void> {
  const pinning = choosePinning();
  const missing: Record<string, string | undefined> = {
    redis: process.env.REDIS_URL ? undefined : 'REDIS_URL',
    postgres: process.env.DATABASE_URL ? undefined : 'DATABASE_URL',
  };
  const backends = BACKENDS.filter((backend): backend is Backend => {
    if (missing[backend]) console.log(`${missing[backend]} not set: ${backend} skipped`);
    return (backend === 'redis' || backend === 'postgres' || backend === 'pglite') && !missing[backend];
  });
  pinSelf(pinning);
  console.log(
    `${LOOKUPS.toLocaleString('en')} lookups per measurement (findWithVersions of an access token and its ` +
      `owners' two version keys), sizes ${SIZES.join(', ')}, ${pinning ? `this process on CPU ${pinning.servers} (a private Redis on CPU ${pinning.generator})` : 'unpinned'}`,
  );
  const runs: SizeRun[] = [];
  for (const backend of backends)
    for (const size of SIZES) runs.push(await measureSize(backend, size, pinning));

  console.table(
    runs.flatMap((r) =>
      r.lookups.map((m) => ({
        backend: r.backend,
        grants: r.size,
        tokens: m.tokens,
        concurrency: m.concurrency,
        'p50 µs': m.p50Us,
        'p99 µs': m.p99Us,
        'CPU µs/lookup': m.cpuUsPerLookup,
        'lookups/s': m.lookupsPerSecond,
      })),
    ),
  );
  const ratioRows = ratios(runs);
  console.log('largest size / smallest size (1.0 = lookup cost independent of the number of grants):');
  console.table(ratioRows);
  console.log('bytes per grant (Grant + access token + refresh token + index entries):');
  console.table(
    runs.map((r) => ({ backend: r.backend, grants: r.size, 'fill s': r.fillSeconds, ...r.bytesPerGrant })),
  );
  if (runs.some((r) => r.backend === 'redis'))
    console.log(
      'note: the Redis store keeps up to 4,096 parsed access-token records (decoded-records.ts): with ' +
        '1,000 grants every live lookup after the first finds its record parsed, with 1,000,000 almost ' +
        'none does, so the live-token CPU ratio includes JSON parsing the API does at that size.',
    );
  console.log(
    `BENCH_RESULT ${JSON.stringify({ scenario: 'token-lookup', at: new Date().toISOString(), lookups: LOOKUPS, runs, ratios: ratioRows })}`,
  );
}
