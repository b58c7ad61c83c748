import { type ChildProcess, spawn } from 'node:child_process';
import { SERVICE_NODE_FLAGS } from '@sched/kit/node-flags';
import { execFileSync } from 'node:child_process';
import {
  choosePinning,
  type LoadOptions,
  type LoadResult,
  type Pinning,
  runAutocannon,
  runWrk,
  wrkAvailable,
} from '../load.ts';
import { printRatio } from '../measure.ts';
import { startPrivateRedis } from '../private-redis.ts';
import type { ReadyMessage, ServerKey, StatsMessage } from '../servers/membership-read.ts';

/**
 * Issue 4: an authorized GET of a team membership with an OAuth token (scope TEAM_MEMBERSHIP_READ
 * checked, team access through the caller's organization role ADMIN, PBAC on and evaluated: the
 * caller's custom role lacks team.listMembers, so the role check decides) at 50 connections,
 * beside a bare Koa handler returning the same JSON, measured in the same run.
 * Goal: at least 50% of the bare handler's requests/s and p99 under 20 ms.
 *
 * Method (README "Benchmarks", services/api/README.md):
 * - both servers run in a child process (test/bench/servers/membership-read.ts), pinned to the last
 *   CPU; the load generator runs in another process pinned to CPU 0 (taskset; BENCH_PIN=0 turns
 *   pinning off). Redis is a redis-server of the run's own, pinned to CPU 0 with the generator
 *   (private-redis.ts: where the kernel put the machine's Redis moved the API's figures by 10
 *   points; BENCH_PRIVATE_REDIS=0 uses REDIS_URL's). Postgres is the machine's, not pinned (the
 *   measured requests do not reach it).
 * - same JSON text, 50 keep-alive connections, same keep-alive timeout for both servers;
 * - two generators, autocannon and wrk (when installed), each against the authorized GET, the bare
 *   handler and the API app's 404 (its HTTP stack alone), in alternating order over BENCH_ROUNDS
 *   rounds (default 5) of BENCH_DURATION seconds (default 5); medians by requests/s;
 * - BENCH_LAYERS=1 adds one target per layer between the two (kit middleware; the API app's router
 *   and mount on a public route; plus the token-store read and scope check), to see what each costs;
 * - per target, from the server process: CPU microseconds per request (a cost that depends little
 *   on the load generator and on other load), the share of time its event loop was busy (near
 *   100%: the server was the bottleneck; well below: the generator was), and JS heap bytes
 *   allocated per request.
 */

type TargetKey = 'api' | 'bare' | 'constant' | 'notFound' | 'kit' | 'route' | 'token';

interface Row extends LoadResult {
  target: TargetKey;
  cpuUsPerRequest: number;
  loopBusy: number;
  allocatedKbPerRequest: number;
}

const MAIN_TARGETS: readonly TargetKey[] = ['api', 'bare', 'constant', 'notFound'];
const LAYER_TARGETS: readonly TargetKey[] = ['kit', 'route', 'token'];
/** Which server process counter answers a target. */
const SERVER_OF: Record<TargetKey, ServerKey> = {
  api: 'api',
  bare: 'bare',
  constant: 'bare',
  notFound: 'api',
  kit: 'kit',
  route: 'route',
  token: 'token',
};

const LABELS: Record<TargetKey, string> = {
  api: 'authorized GET (OAuth, scope + org role + PBAC)',
  bare: 'bare Koa, same JSON (object body)',
  constant: 'bare Koa, same bytes as a constant string',
  notFound: 'API app, unknown route (404)',
  kit: 'layer: bare Koa + kit middleware',
  route: 'layer: API app, public route (router, mount)',
  token: 'layer: API app, token read + scope check',
};

function startServers(
  pinning: Pinning | null,
  redisUrl: string | undefined,
): Promise<{ child: ChildProcess; ready: ReadyMessage }> {
  const script = new URL('../servers/membership-read.ts', import.meta.url).pathname;
  // The production Node flags, for the API and the bare handler alike (same process).
  const node = [process.execPath, ...SERVICE_NODE_FLAGS, script];
  const [file, args] = pinning ? ['taskset', ['-c', pinning.servers, ...node]] : [node[0]!, node.slice(1)];
  const env = redisUrl === undefined ? process.env : { ...process.env, REDIS_URL: redisUrl };
  const child = spawn(file, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bench servers exited with ${code}`)));
    child.once('message', (message: ReadyMessage) => resolve({ child, ready: message }));
  });
}

function askStats(child: ChildProcess): Promise<StatsMessage> {
  return new Promise((resolve) => {
    child.once('message', (message: StatsMessage) => resolve(message));
    child.send({ type: 'stats' });
  });
}

/** The run with the median requests/s (its own latencies and costs). */
function median(rows: Row[]): Row {
  const sorted = [...rows].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function uptime(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function run(): Promise<void> {
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const connections = 50;
  const pinning = choosePinning();
  const privateRedis = await startPrivateRedis(pinning);
  const { child, ready } = await startServers(pinning, privateRedis?.url);
  try {
    const targets: Record<TargetKey, LoadOptions> = {
      api: { url: ready.apiUrl, headers: ready.headers, connections, durationSeconds: duration },
      bare: { url: ready.bareUrl, connections, durationSeconds: duration },
      constant: { url: ready.constantUrl, connections, durationSeconds: duration },
      notFound: { url: ready.notFoundUrl, connections, durationSeconds: duration },
      kit: { url: ready.layerUrls.kit, connections, durationSeconds: duration },
      route: { url: ready.layerUrls.route, connections, durationSeconds: duration },
      token: { url: ready.layerUrls.token, headers: ready.headers, connections, durationSeconds: duration },
    };
    const allTargets = process.env.BENCH_LAYERS === '1' ? [...MAIN_TARGETS, ...LAYER_TARGETS] : MAIN_TARGETS;
    const tools = wrkAvailable() ? (['autocannon', 'wrk'] as const) : (['autocannon'] as const);
    const generate = (tool: 'autocannon' | 'wrk', options: LoadOptions) =>
      tool === 'wrk' ? runWrk(options, pinning) : runAutocannon(options, pinning);

    console.log(
      `backend: ${ready.backend}; ${connections} keep-alive connections; ${rounds} alternating rounds of ${duration} s per generator (${tools.join(', ')}), medians`,
    );
    console.log(
      pinning
        ? `servers pinned to CPU ${pinning.servers}, load generator to CPU ${pinning.generator}; ${
            privateRedis
              ? `Redis: the benchmark's own redis-server, pinned to CPU ${pinning.generator}`
              : "Redis: the machine's, unpinned"
          }; Postgres unpinned`
        : 'no CPU pinning (one CPU, no taskset, or BENCH_PIN=0): generator and servers share the CPUs',
    );
    console.log(`machine load at start: ${uptime()}`);
    if (!wrkAvailable()) console.log('wrk not installed (apt-get install -y wrk): autocannon only');

    // Warm-up (JIT, caches) of each target, not measured.
    for (const key of allTargets) {
      await runAutocannon({ ...targets[key], durationSeconds: 2 }, pinning);
    }

    const rows: Row[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const tool of tools) {
        const order: TargetKey[] = round % 2 === 0 ? [...allTargets] : [...allTargets].reverse();
        for (const target of order) {
          const before = await askStats(child);
          const load = await generate(tool, targets[target]);
          const after = await askStats(child);
          const served = after.requests[SERVER_OF[target]] - before.requests[SERVER_OF[target]];
          const active = after.elu.active - before.elu.active;
          const idle = after.elu.idle - before.elu.idle;
          rows.push({
            ...load,
            target,
            cpuUsPerRequest: Math.round(((after.cpuUs - before.cpuUs) / Math.max(1, served)) * 10) / 10,
            loopBusy: Math.round((active / Math.max(1, active + idle)) * 100),
            allocatedKbPerRequest:
              Math.round(((after.allocatedBytes - before.allocatedBytes) / Math.max(1, served) / 1024) * 10) /
              10,
          });
        }
      }
    }

    console.table(
      tools.flatMap((tool) =>
        allTargets.map((target) => {
          const row = median(rows.filter((r) => r.tool === tool && r.target === target));
          return {
            tool,
            target: LABELS[target],
            'req/s': row.requestsPerSecond,
            'p50 ms': row.p50Ms,
            'p99 ms': row.p99Ms,
            'server CPU us/req': row.cpuUsPerRequest,
            'server loop busy %': row.loopBusy,
            'alloc KB/req': row.allocatedKbPerRequest,
            'errors + non-2xx': row.errors + (target === 'notFound' ? 0 : row.non2xx),
          };
        }),
      ),
    );
    for (const tool of tools) {
      const api = median(rows.filter((r) => r.tool === tool && r.target === 'api'));
      const bare = median(rows.filter((r) => r.tool === tool && r.target === 'bare'));
      const constant = median(rows.filter((r) => r.tool === tool && r.target === 'constant'));
      printRatio(
        `${tool}: authorized GET vs bare Koa (requests/s)`,
        api.requestsPerSecond,
        bare.requestsPerSecond,
        '>= 50%',
      );
      printRatio(
        `${tool}: authorized GET vs bare Koa answering a constant string (reference)`,
        api.requestsPerSecond,
        constant.requestsPerSecond,
      );
      console.log(
        `${tool}: authorized GET p99 ${api.p99Ms} ms (goal: < 20 ms); bare Koa p99 ${bare.p99Ms} ms`,
      );
      if (bare.loopBusy < 90)
        console.log(
          `${tool}: the bare server's loop was busy ${bare.loopBusy}% only: the generator, not the server, limited it`,
        );
    }
    // Medians over both generators: the cost per request hardly depends on which one sent it.
    const cost = (target: TargetKey) => median(rows.filter((r) => r.target === target)).cpuUsPerRequest;
    const apiCost = cost('api');
    const bareCost = cost('bare');
    printRatio(
      'server CPU per request, bare Koa vs authorized GET (the throughput ratio when CPU-bound)',
      bareCost,
      apiCost,
    );
    printRatio(
      'server CPU per request, constant-string Koa vs authorized GET (reference)',
      cost('constant'),
      apiCost,
    );
    if (rows.some((r) => r.target !== 'notFound' && (r.errors > 0 || r.non2xx > 0)))
      console.log('WARNING: non-2xx answers or socket errors in some run');
    console.log(`machine load at end: ${uptime()}`);
  } finally {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send({ type: 'close' });
    await exited;
    privateRedis?.stop();
  }
}
