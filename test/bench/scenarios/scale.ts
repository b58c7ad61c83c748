import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { insertClient, insertUser } from '../../support/factories.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { childPids } from '../../support/process.ts';
import { Redis } from 'ioredis';
import { FlowBrowser, issueTokens } from '../../support/oauth.ts';
import { choosePinning, runAutocannon, runWrk, wrkAvailable } from '../load.ts';

/**
 * `scale` (#18): N resource-API processes behind the gateway (nginx, deploy/gateway) serving the
 * authorized read `GET /v2/me`, for each N in BENCH_SCALE_API (default `1,2`): requests per second,
 * p50/p99, and the CPU each request cost the API processes together and nginx (their own user +
 * system time from /proc), so the per-core capacity of deploy/README.md's model can be read off.
 * Throughput grows with N only while cores are free: on a two-core machine the load generator,
 * nginx and the API processes share them, so read the CPU per request there, not the ratio.
 * Also Redis's memory per live grant (its access token, refresh token, index entries), from
 * `INFO memory` before and after GRANTS more grants of one signed-in user over several clients.
 * Needs DATABASE_URL and REDIS_URL (standalone services).
 */

const SECONDS = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = 64;
const TICKS_PER_SECOND = 100;
const GRANTS = 200;

function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** nginx's master and workers: the processes whose parent is the master. */
function nginxPids(master: number | undefined): number[] {
  if (master === undefined) return [];
  return [master, ...childPids(master)];
}

/** Redis bytes per grant: used_memory grows by this much per authorization code flow. */
async function bytesPerGrant(running: Awaited<ReturnType<typeof startTestGateway>>): Promise<number> {
  const redis = new Redis(running.redisUrl);
  try {
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    const knex = running.database.db.knex;
    const user = await insertUser(knex);
    const browser = new FlowBrowser(running.url);
    const clients = await Promise.all(
      Array.from({ length: 10 }, () =>
        insertClient(knex, { ownerUserId: user.id, scopes: ['PROFILE_READ'] }),
      ),
    );
    // One grant first: the sign-in's session and the per-user index keys are not per grant.
    await issueTokens(running.url, clients[0]!, user, ['PROFILE_READ'], browser);
    const before = await usedMemory();
    for (let i = 0; i < GRANTS; i++) {
      await issueTokens(running.url, clients[i % clients.length]!, user, ['PROFILE_READ'], browser);
    }
    return Math.round(((await usedMemory()) - before) / GRANTS);
  } finally {
    redis.disconnect();
  }
}

async function measure(apiProcesses: number) {
  const running = await startTestGateway({ auth: 1, api: apiProcesses });
  try {
    const knex = running.database.db.knex;
    const user = await insertUser(knex);
    const client = await insertClient(knex, { ownerUserId: user.id, scopes: ['PROFILE_READ'] });
    const tokens = await issueTokens(running.url, client, user, ['PROFILE_READ']);
    const apiPids = running.gateway.api.map((process) => process.pid);
    const nginx = nginxPids(running.gateway.nginx.pid);
    const total = (pids: Array<number | undefined>) =>
      pids.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0);
    const cpu = () => ({ api: total(apiPids), nginx: total(nginx) });
    const options = {
      url: `${running.url}/v2/me`,
      headers: { authorization: `Bearer ${tokens.access_token}` },
      connections: CONNECTIONS,
      durationSeconds: SECONDS,
    };
    // The generator alone on CPU 0 when there are cores to spare; the servers float.
    const pinning = choosePinning();
    const before = cpu();
    const result = wrkAvailable() ? await runWrk(options, pinning) : await runAutocannon(options, pinning);
    const after = cpu();
    const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, result.requests));
    return {
      apiProcesses,
      tool: result.tool,
      requestsPerSecond: result.requestsPerSecond,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      apiCpuUsPerRequest: perRequest(after.api - before.api),
      nginxCpuUsPerRequest: perRequest(after.nginx - before.nginx),
      failed: result.errors + result.non2xx,
    };
  } finally {
    await running.stop();
  }
}

export async function run(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    console.log('skipped: the scale scenario needs DATABASE_URL and REDIS_URL (standalone services)');
    return;
  }
  const counts = (process.env.BENCH_SCALE_API ?? '1,2').split(',').map(Number);
  console.log(`${SECONDS} s per run, ${CONNECTIONS} connections, ${availableParallelism()} CPUs`);
  const rows = [];
  for (const count of counts) rows.push(await measure(count));
  console.table(rows);
  const running = await startTestGateway({ auth: 1, api: 1 });
  try {
    console.log(
      `Redis memory per live grant (code flow, access + refresh token): ${await bytesPerGrant(running)} bytes`,
    );
  } finally {
    await running.stop();
  }
}
