import { choosePinning, type LoadOptions, type Pinning, runWrk, wrkAvailable } from '../load.ts';
import {
  describeMachine,
  describeRound,
  printSummary,
  runAlternating,
  summarize,
  type Target,
} from '../pinned/compare.ts';
import { httpLoad } from '../pinned/generator.ts';
import { alternativeFlagSets, type BenchServer, startBenchServer } from '../pinned/servers.ts';
import { startPrivateRedis } from '../private-redis.ts';
import type { BareKoaReady } from '../servers/bare-koa.ts';
import type { MembershipApiReady } from '../servers/membership-api.ts';

/**
 * An authorized API read (issue 22): GET of a team membership with an OAuth token (scope
 * TEAM_MEMBERSHIP_READ, team access through the caller's organization role ADMIN, PBAC on and
 * evaluated) against bare Koa answering the same JSON. Goal: at most 1.3x bare Koa's server CPU
 * per request, p99 at most 2x.
 *
 * Method (test/bench/pinned): the API (servers/membership-api.ts) and bare Koa
 * (servers/bare-koa.ts) each in a Node process of its own, both pinned to the last CPU; the load
 * generator (autocannon, or wrk with BENCH_GENERATOR=wrk) in a third process pinned to CPU 0;
 * Redis a redis-server of the run's own pinned to CPU 0 (private-redis.ts; BENCH_PRIVATE_REDIS=0
 * uses REDIS_URL's). Alternating rounds (baseline, API, baseline, API ...), BENCH_ROUNDS (7) of
 * BENCH_DURATION seconds (5) at 50 keep-alive connections after one warm-up round each; medians.
 * From each server process's own counters: CPU µs per request (process.cpuUsage, all threads),
 * heap KB allocated per request, loop busy %. BENCH_LAYERS=1 adds the API's 404, bare Koa's
 * constant string and the layers between the two (the entry middleware; router and mount on a public
 * route; token read and scope check).
 */

const CONNECTIONS = 50;

function load(options: LoadOptions, pinning: Pinning | null) {
  if (process.env.BENCH_GENERATOR === 'wrk') {
    if (!wrkAvailable()) throw new Error('BENCH_GENERATOR=wrk: wrk is not installed');
    return () => runWrk(options, pinning);
  }
  return httpLoad(options, pinning);
}

export async function run(): Promise<void> {
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const layers = process.env.BENCH_LAYERS === '1';
  const pinning = choosePinning();
  const privateRedis = await startPrivateRedis(pinning);
  const servers: BenchServer[] = [];
  try {
    const api = await startBenchServer<MembershipApiReady>({
      name: 'membership API',
      script: new URL('../servers/membership-api.ts', import.meta.url).pathname,
      env: privateRedis ? { REDIS_URL: privateRedis.url } : {},
      pinning,
    });
    servers.push(api);
    const bare = await startBenchServer<BareKoaReady>({
      name: 'bare Koa',
      script: new URL('../servers/bare-koa.ts', import.meta.url).pathname,
      env: { BENCH_JSON: api.ready.json },
      pinning,
    });
    servers.push(bare);
    const [apiAnswer, bareAnswer] = await Promise.all([
      fetch(api.ready.apiUrl, { headers: api.ready.headers }),
      fetch(bare.ready.url),
    ]);
    if (
      (await apiAnswer.text()) !== (await bareAnswer.text()) ||
      apiAnswer.headers.get('content-type') !== bareAnswer.headers.get('content-type')
    )
      throw new Error('bare Koa does not answer what the API answers');

    const options = (url: string, headers?: Record<string, string>): LoadOptions => ({
      url,
      headers,
      connections: CONNECTIONS,
      durationSeconds: duration,
    });
    const targets: Target[] = [
      {
        key: 'bare',
        label: 'bare Koa, same JSON',
        server: bare,
        load: load(options(bare.ready.url), pinning),
      },
      {
        key: 'api',
        label: 'authorized GET (OAuth, scope, org role, PBAC)',
        server: api,
        load: load(options(api.ready.apiUrl, api.ready.headers), pinning),
      },
    ];
    for (const [i, alternative] of alternativeFlagSets().entries()) {
      const server = await startBenchServer<MembershipApiReady>({
        name: `membership API, ${alternative.label}`,
        script: new URL('../servers/membership-api.ts', import.meta.url).pathname,
        env: privateRedis ? { REDIS_URL: privateRedis.url } : {},
        nodeFlags: alternative.flags,
        pinning,
      });
      servers.push(server);
      targets.push({
        key: `api-flags-${i + 1}`,
        label: `authorized GET, Node flags ${alternative.label}`,
        server,
        counter: 'api',
        load: load(options(server.ready.apiUrl, server.ready.headers), pinning),
      });
    }
    if (layers) {
      const { kit, route, token } = api.ready.layerUrls;
      targets.push(
        {
          key: 'constant',
          label: 'bare Koa, constant string',
          server: bare,
          load: load(options(bare.ready.constantUrl), pinning),
        },
        {
          key: 'notFound',
          label: 'API, unknown route (404)',
          server: api,
          counter: 'api',
          load: load(options(api.ready.notFoundUrl), pinning),
        },
        {
          key: 'kit',
          label: 'layer: Koa + API entry middleware',
          server: api,
          load: load(options(kit), pinning),
        },
        { key: 'route', label: 'layer: API, public route', server: api, load: load(options(route), pinning) },
        {
          key: 'token',
          label: 'layer: API, token + scope',
          server: api,
          load: load(options(token, api.ready.headers), pinning),
        },
      );
    }

    console.log(describeMachine(pinning));
    console.log(
      `backend: ${api.ready.backend}; Redis: ${privateRedis ? `own redis-server on CPU ${pinning?.generator}` : 'REDIS_URL as given'}; ${CONNECTIONS} connections; ${rounds} alternating rounds of ${duration} s; generator ${process.env.BENCH_GENERATOR === 'wrk' ? 'wrk' : 'autocannon'}; medians`,
    );
    const rows = await runAlternating({
      targets,
      rounds,
      onRound: (row) => console.log(describeRound(row)),
    });
    printSummary('membership-read', summarize(rows, targets, 'bare'), {
      baseline: 'bare',
      goals: { api: { cpu: 1.3, p99: 2 } },
      notes: layers ? ['the 404 counts as errors+non2xx by design'] : [],
    });
    if (targets.some((target) => target.key.startsWith('api-flags-')))
      printSummary('membership-read-vs-production-flags', summarize(rows, targets, 'api'), {
        baseline: 'api',
        notes: [
          'ratios of each target to the API with the production Node flags (BENCH_FLAGS_ALT): above 1 costs more',
        ],
      });
    console.log(`after: ${describeMachine(pinning)}`);
  } finally {
    for (const server of servers) await server.close();
    privateRedis?.stop();
  }
}
