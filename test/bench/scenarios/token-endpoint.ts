import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { choosePinning } from '../load.ts';
import {
  describeMachine,
  describeRound,
  printSummary,
  runAlternating,
  summarize,
  type Target,
} from '../pinned/compare.ts';
import { refreshLoad } from '../pinned/generator.ts';
import { alternativeFlagSets, type BenchServer, startBenchServer } from '../pinned/servers.ts';
import { startPrivateRedis } from '../private-redis.ts';
import type { TokenServerReady } from '../servers/bare-oidc-provider.ts';

/**
 * refresh_token grant with rotation (issue 22): our token endpoint (servers/token-endpoint.ts)
 * against a bare oidc-provider with its in-memory adapter (servers/bare-oidc-provider.ts), with
 * BENCH_CLIENTS active clients (default: one run with 10, one with 1000; e.g. BENCH_CLIENTS=10).
 * Goals: at most 1.2x the bare provider's server CPU per request with 10 clients, 1.3x with 1,000;
 * at most 70 KB allocated per refresh.
 *
 * Method (test/bench/pinned): each server in a Node process of its own pinned to the last CPU, the
 * generator (autocannon with rotating refresh tokens, pinned/refresh-generator.ts) in another
 * pinned to CPU 0, Redis a redis-server of the run's own on CPU 0 (without REDIS_URL: the
 * embedded default, PGlite and the SQL token store). Rounds counted in requests (BENCH_REQUESTS,
 * 6000) so no token is lost in flight between rounds; 3 warm-up rounds each, then BENCH_ROUNDS
 * (5) alternating rounds (bare, ours, bare, ours ...) at 50 connections; medians.
 */

const CONNECTIONS = 50;

/**
 * BENCH_BEFORE: the path of an earlier build's token-endpoint server script (same ready data and
 * request counter; test/bench/ports/ holds the port for 292005d and how to set it up). It runs as a
 * third target, `before`, in the same alternating rounds, with the same Node flags, pinning, Redis
 * and clients, and the scenario prints ours against it as well as against the bare provider.
 */
async function startBeforeBuild(
  env: Record<string, string>,
  redisUrl: string | undefined,
  pinning: ReturnType<typeof choosePinning>,
): Promise<{ server: BenchServer<TokenServerReady>; build: string } | null> {
  const script = process.env.BENCH_BEFORE;
  if (!script) return null;
  const build = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: dirname(script),
    encoding: 'utf8',
  }).trim();
  const server = await startBenchServer<TokenServerReady>({
    name: `before (${build})`,
    script,
    env: { ...env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
    pinning,
  });
  return { server, build };
}
const ALLOCATION_GOAL_KB = 70;

export async function run(): Promise<void> {
  const clientCounts = (process.env.BENCH_CLIENTS ?? '10,1000').split(',').map(Number);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const amount = Number(process.env.BENCH_REQUESTS ?? 6000);
  const pinning = choosePinning();
  const privateRedis = await startPrivateRedis(pinning);
  try {
    for (const clients of clientCounts) await runWith(clients, rounds, amount, pinning, privateRedis?.url);
  } finally {
    privateRedis?.stop();
  }
}

async function runWith(
  clients: number,
  rounds: number,
  amount: number,
  pinning: ReturnType<typeof choosePinning>,
  redisUrl: string | undefined,
): Promise<void> {
  const servers: BenchServer<TokenServerReady>[] = [];
  const failures = new Map<string, number>();
  try {
    const env = { BENCH_CLIENTS: String(clients) };
    const bare = await startBenchServer<TokenServerReady>({
      name: 'bare oidc-provider',
      script: new URL('../servers/bare-oidc-provider.ts', import.meta.url).pathname,
      env,
      pinning,
    });
    servers.push(bare);
    const ours = await startBenchServer<TokenServerReady>({
      name: 'our token endpoint',
      script: new URL('../servers/token-endpoint.ts', import.meta.url).pathname,
      env: { ...env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
      pinning,
    });
    servers.push(ours);
    const entries: [string, string, BenchServer<TokenServerReady>][] = [
      ['bare', 'bare oidc-provider', bare],
      ['ours', 'our token endpoint', ours],
    ];
    const before = await startBeforeBuild(env, redisUrl, pinning);
    if (before) {
      servers.push(before.server);
      entries.splice(1, 0, ['before', `before (${before.build})`, before.server]);
    }
    // Numbered from 1 whether or not `before` runs, so the keys in BENCH_RESULT mean the same set.
    for (const [i, alternative] of alternativeFlagSets().entries()) {
      const server = await startBenchServer<TokenServerReady>({
        name: `our token endpoint, ${alternative.label}`,
        script: new URL('../servers/token-endpoint.ts', import.meta.url).pathname,
        env: { ...env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
        nodeFlags: alternative.flags,
        pinning,
      });
      servers.push(server);
      entries.push([`ours-flags-${i + 1}`, `ours, Node flags ${alternative.label}`, server]);
    }
    const targets: Target[] = entries.map(([key, label, server]) => ({
      key,
      label: `${label}, ${clients} clients`,
      server,
      counter: key === 'bare' ? 'bare' : 'ours', // every script of ours (any build, any flags) counts under `ours`
      load: refreshLoad({ ...server.ready, connections: CONNECTIONS, amount }, pinning, failures),
    }));
    console.log(`\n--- ${clients} active clients`);
    console.log(describeMachine(pinning));
    console.log(
      `ours on ${ours.ready.backend}; bare: ${bare.ready.backend}${before ? `; before: ${before.server.ready.backend}` : ''}; pools of ${bare.ready.pool.length} and ${ours.ready.pool.length} refresh-token chains; ${CONNECTIONS} connections; ${rounds} alternating rounds of ${amount} requests; medians`,
    );
    const rows = await runAlternating({
      targets,
      rounds,
      warmupRounds: 3,
      onRound: (row) => console.log(describeRound(row)),
    });
    const summaries = summarize(rows, targets, 'bare');
    const oursSummary = summaries.find((s) => s.target === 'ours')!;
    printSummary(`token-endpoint-${clients}`, summaries, {
      baseline: 'bare',
      goals: { ours: { cpu: clients <= 10 ? 1.2 : 1.3 } },
      notes: [
        `allocation per refresh, ours: ${oursSummary.allocatedKbPerRequest} KB (goal <= ${ALLOCATION_GOAL_KB} KB: ${oursSummary.allocatedKbPerRequest <= ALLOCATION_GOAL_KB ? 'met' : 'NOT met'})`,
        ...(ours.ready.backend.startsWith('pglite')
          ? [
              'the embedded default keeps tokens in PGlite: run with DATABASE_URL and REDIS_URL for production figures',
            ]
          : []),
      ],
    });
    if (before)
      printSummary(`token-endpoint-${clients}-vs-before`, summarize(rows, targets, 'before'), {
        baseline: 'before',
        notes: ['ratios of each target to the earlier build (BENCH_BEFORE)'],
      });
    if (entries.some(([key]) => key.startsWith('ours-flags-')))
      printSummary(`token-endpoint-${clients}-vs-production-flags`, summarize(rows, targets, 'ours'), {
        baseline: 'ours',
        notes: [
          'ratios of each target to ours with the production Node flags (BENCH_FLAGS_ALT): above 1 costs more',
        ],
      });
    for (const [body, count] of failures) console.log(`unexpected answer (${count}x): ${body.slice(0, 200)}`);
    console.log(`after: ${describeMachine(pinning)}`);
  } finally {
    for (const server of servers) await server.close();
  }
}
