import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { LoadResult, Pinning } from '../load.ts';
import type { BenchServer } from './servers.ts';

/**
 * Alternating rounds against targets served by separate pinned processes, and their figures as
 * ratios to a baseline. Per round and target: the generator's requests/s and latencies, and from
 * the server process's own counters the CPU time and heap allocation per answered request and the
 * share of time its event loop was busy (near 100%: the server, not the generator, was the limit).
 * CPU per request is the figure to steer by on a shared machine: other load slows a round's
 * throughput, much less the CPU each request costs.
 */

export interface Target {
  key: string;
  label: string;
  server: BenchServer;
  /** The server-side counter that counts this target's requests; `key` by default. */
  counter?: string;
  /** One round of load (a generator process); resolves when the round is over. */
  load: () => Promise<LoadResult>;
}

export interface RoundRow extends LoadResult {
  target: string;
  round: number;
  served: number;
  cpuUsPerRequest: number;
  /** The kernel's part of cpuUsPerRequest. */
  systemUsPerRequest: number;
  allocatedBytesPerRequest: number;
  loopBusyPercent: number;
}

export interface Summary {
  target: string;
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  allocatedKbPerRequest: number;
  loopBusyPercent: number;
  errors: number;
  non2xx: number;
  /** Each figure divided by the baseline's (ours / baseline: above 1 costs more, or serves more). */
  ratio: { cpu: number; requestsPerSecond: number; p50: number; p99: number; allocation: number };
  /**
   * The median over rounds of this round's figure divided by the baseline's in the same round:
   * what alternating rounds are for. Drift during a run (other load, a baseline that slows as its
   * memory store grows) moves both sides of a round alike and cancels here, not in `ratio`.
   */
  pairedRatio: { cpu: number; requestsPerSecond: number };
  /**
   * This target's lowest CPU per request over the rounds divided by the baseline's lowest. Other
   * load on the host only ever adds CPU, so on a host whose speed swings between rounds the fastest
   * rounds are the closest to each target's own cost (the third summary beside medians and paired).
   */
  fastestRatio: { cpu: number };
  /**
   * Allocation per request in the later half of the rounds over the earlier half (medians; NaN
   * under 4 rounds). Allocation does not depend on the machine's load, so a rise means the target
   * itself changed during the run: a baseline whose memory store grows got slower and flattered
   * every ratio to it until the bare provider's store was bounded (docs/performance.md).
   */
  allocationDrift: number;
}

/** Above this, a target's allocation per request rose during the run: its figures are suspect. */
export const ALLOCATION_DRIFT_LIMIT = 1.15;

/** The upper bounds a scenario aims at, as ratios to the baseline. */
export interface Goals {
  cpu?: number;
  p99?: number;
  allocation?: number;
}

export interface RunOptions {
  targets: Target[];
  rounds: number;
  /** Unmeasured rounds first (JIT, caches), each target in turn. */
  warmupRounds?: number;
  /** Called after each round, e.g. to print progress. */
  onRound?: (row: RoundRow) => void;
}

/** Runs the targets in turn (A, B, A, B ...) so that load from elsewhere hits all alike. */
export async function runAlternating(options: RunOptions): Promise<RoundRow[]> {
  for (let round = 0; round < (options.warmupRounds ?? 1); round++) {
    for (const target of options.targets) await target.load();
  }
  const rows: RoundRow[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const target of options.targets) {
      const before = await target.server.stats();
      const load = await target.load();
      const after = await target.server.stats();
      const counter = target.counter ?? target.key;
      const served = Math.max(1, (after.requests[counter] ?? 0) - (before.requests[counter] ?? 0));
      const active = after.elu.active - before.elu.active;
      const idle = after.elu.idle - before.elu.idle;
      const row: RoundRow = {
        ...load,
        target: target.key,
        round,
        served,
        cpuUsPerRequest: (after.cpuUs - before.cpuUs) / served,
        systemUsPerRequest: ((after.systemUs ?? Number.NaN) - (before.systemUs ?? Number.NaN)) / served,
        allocatedBytesPerRequest: (after.allocatedBytes - before.allocatedBytes) / served,
        loopBusyPercent: (active / Math.max(1e-9, active + idle)) * 100,
      };
      rows.push(row);
      options.onRound?.(row);
    }
  }
  return rows;
}

/** One round's figures, one line (printed as the rounds run). */
export const describeRound = (row: RoundRow): string =>
  `  round ${row.round} ${row.target}: ${row.requestsPerSecond} req/s, ` +
  `${row.cpuUsPerRequest.toFixed(1)} µs CPU/req (system ${row.systemUsPerRequest.toFixed(1)}), ` +
  `${(row.allocatedBytesPerRequest / 1024).toFixed(1)} KB/req, p99 ${row.p99Ms} ms, loop ${row.loopBusyPercent.toFixed(0)}%`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

/** Medians of each figure over the rounds, per target, and their ratios to `baseline`'s. */
export function summarize(rows: RoundRow[], targets: Target[], baseline: string): Summary[] {
  const medians = targets.map((target) => {
    const own = rows.filter((row) => row.target === target.key);
    const of = (pick: (row: RoundRow) => number) => median(own.map(pick));
    return {
      target: target.key,
      label: target.label,
      requestsPerSecond: Math.round(of((r) => r.requestsPerSecond)),
      p50Ms: of((r) => r.p50Ms),
      p99Ms: of((r) => r.p99Ms),
      cpuUsPerRequest: round1(of((r) => r.cpuUsPerRequest)),
      allocatedKbPerRequest: round1(of((r) => r.allocatedBytesPerRequest) / 1024),
      loopBusyPercent: Math.round(of((r) => r.loopBusyPercent)),
      errors: own.reduce((sum, r) => sum + r.errors, 0),
      non2xx: own.reduce((sum, r) => sum + r.non2xx, 0),
    };
  });
  const base = medians.find((m) => m.target === baseline);
  if (!base) throw new Error(`no baseline target ${baseline}`);
  const ratio = (a: number, b: number) => (b === 0 ? Number.NaN : round2(a / b));
  const baseRows = new Map(rows.filter((row) => row.target === baseline).map((row) => [row.round, row]));
  const paired = (target: string, pick: (row: RoundRow) => number) => {
    const ratios = rows
      .filter((row) => row.target === target && baseRows.has(row.round))
      .map((row) => pick(row) / pick(baseRows.get(row.round)!));
    return ratios.length === 0 ? Number.NaN : round2(median(ratios));
  };
  const drift = (target: string) => {
    const own = rows.filter((row) => row.target === target).sort((a, b) => a.round - b.round);
    if (own.length < 4) return Number.NaN;
    const half = Math.floor(own.length / 2);
    const early = median(own.slice(0, half).map((row) => row.allocatedBytesPerRequest));
    const late = median(own.slice(own.length - half).map((row) => row.allocatedBytesPerRequest));
    return ratio(late, early);
  };
  const fastest = (target: string) => {
    const own = rows.filter((row) => row.target === target).map((row) => row.cpuUsPerRequest);
    return own.length === 0 ? Number.NaN : Math.min(...own);
  };
  return medians.map((m) => ({
    ...m,
    allocationDrift: drift(m.target),
    fastestRatio: { cpu: ratio(fastest(m.target), fastest(baseline)) },
    pairedRatio: {
      cpu: paired(m.target, (r) => r.cpuUsPerRequest),
      requestsPerSecond: paired(m.target, (r) => r.requestsPerSecond),
    },
    ratio: {
      cpu: ratio(m.cpuUsPerRequest, base.cpuUsPerRequest),
      requestsPerSecond: ratio(m.requestsPerSecond, base.requestsPerSecond),
      p50: ratio(m.p50Ms, base.p50Ms),
      p99: ratio(m.p99Ms, base.p99Ms),
      allocation: ratio(m.allocatedKbPerRequest, base.allocatedKbPerRequest),
    },
  }));
}

/** The table, the ratios against the goals, and one machine-readable line (`BENCH_RESULT {json}`). */
export function printSummary(
  scenario: string,
  summaries: Summary[],
  options: { baseline: string; goals?: Record<string, Goals>; notes?: string[] },
): void {
  console.table(
    summaries.map((s) => ({
      target: s.label,
      'req/s': s.requestsPerSecond,
      'p50 ms': s.p50Ms,
      'p99 ms': s.p99Ms,
      'CPU µs/req': s.cpuUsPerRequest,
      'alloc KB/req': s.allocatedKbPerRequest,
      'loop busy %': s.loopBusyPercent,
      'errors+non2xx': s.errors + s.non2xx,
      'CPU x': s.ratio.cpu,
      'req/s x': s.ratio.requestsPerSecond,
      'p50 x': s.ratio.p50,
      'p99 x': s.ratio.p99,
      'alloc x': s.ratio.allocation,
    })),
  );
  const base = summaries.find((s) => s.target === options.baseline)!;
  for (const s of summaries) {
    if (s.target === options.baseline) continue;
    const goals = options.goals?.[s.target];
    const check = (name: string, value: number, goal: number | undefined) =>
      goal === undefined
        ? `${name} ${value}x`
        : `${name} ${value}x (goal <= ${goal}x: ${value <= goal ? 'met' : 'NOT met'})`;
    console.log(
      `${s.label} vs ${base.label}: ${[
        check('CPU/req', s.ratio.cpu, goals?.cpu),
        check('p99', s.ratio.p99, goals?.p99),
        check('alloc/req', s.ratio.allocation, goals?.allocation),
        `req/s ${s.ratio.requestsPerSecond}x`,
        `p50 ${s.ratio.p50}x`,
        `round by round (median of each round's ratio): CPU/req ${s.pairedRatio.cpu}x, req/s ${s.pairedRatio.requestsPerSecond}x`,
        `fastest rounds: CPU/req ${s.fastestRatio.cpu}x`,
      ].join('; ')}`,
    );
    if (s.errors + s.non2xx > 0)
      console.log(`WARNING: ${s.label}: ${s.errors} errors, ${s.non2xx} non-2xx answers`);
  }
  for (const s of summaries) {
    if (s.allocationDrift > ALLOCATION_DRIFT_LIMIT)
      console.log(
        `WARNING: ${s.label}: allocation per request rose ${s.allocationDrift}x from the first half of the rounds to the second; the target changed during the run and its ratios are suspect`,
      );
  }
  if (base.loopBusyPercent < 90)
    console.log(
      `note: the baseline's loop was busy ${base.loopBusyPercent}% only: the generator, not the server, limited its throughput (CPU/req still holds)`,
    );
  for (const note of options.notes ?? []) console.log(`note: ${note}`);
  console.log(`BENCH_RESULT ${JSON.stringify({ scenario, at: new Date().toISOString(), summaries })}`);
}

function shell(command: string): string {
  try {
    return execFileSync('sh', ['-c', command], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The machine, the pinning and the load on it: printed before and after each scenario. */
export function describeMachine(pinning: Pinning | null): string {
  const model = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  const pins = pinning
    ? `servers pinned to CPU ${pinning.servers} (each in its own process), load generator to CPU ${pinning.generator}`
    : 'no CPU pinning (one CPU, no taskset, or BENCH_PIN=0)';
  return `${model}, ${shell('nproc')} CPUs, Node ${process.version}; ${pins}; load: ${shell('uptime')}`;
}
