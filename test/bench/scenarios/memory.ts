import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { SERVICE_NODE_FLAGS } from '@sched/kit/node-flags';
import autocannon from 'autocannon';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { insertClient, insertUser } from '../../support/factories.ts';
import { FlowBrowser, issueTokens } from '../../support/oauth.ts';
import { childEnv, freePort, ROOT, waitForStatus } from '../../support/process.ts';
import { choosePinning, type Pinning, runAutocannon } from '../load.ts';
import { type Chain, type Clock, failures, rotatingRefreshRequests } from '../refresh-load.ts';

/**
 * Resident memory of each deployable under load (budget: 150 MB per standalone service, 250 MB for
 * the all-in-one process), as an operator would run them: `services/auth/src/main.ts` under the
 * token-endpoint load (refresh grants with rotation), `services/api/src/main.ts` under authorized
 * GETs (`GET /v2/me` with an OAuth token), and the all-in-one launcher under both at once. Also requests/s and the server's
 * CPU per request (its own user + system time), so a memory setting's cost in speed shows. The
 * resident size is sampled every 100 ms during each load; the high-water mark since the process
 * started (VmHWM) is shown beside it, as it includes the set-up's sign-ins.
 *
 * Node flag sets compared: BENCH_MEMORY_FLAGS (sets separated by `;`, `-` for none), by default
 * the production flags (SERVICE_NODE_FLAGS) and V8's defaults. Servers pinned to the last CPU, load
 * generators to CPU 0 (BENCH_PIN=0: not pinned). Needs DATABASE_URL and REDIS_URL.
 *
 * Entry kinds compared: BENCH_MEMORY_ENTRIES (`source;bundle` by default): the TypeScript sources
 * run with type stripping, and the compiled entry points of `npm run build` (dist/bundle/bin),
 * which is what `npm start` and the launchers run when the build is up to date.
 */

const CLIENTS = 20;
const GRANTS_PER_CLIENT = 5;
const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_DURATION ?? 15);
const SCOPE = 'PROFILE_READ';
const COOKIE_KEYS = 'memory-bench-cookie-key-0123456789abcdef';
/** No client is refused for its rate during the run: the rate limiter still counts every request. */
const RATE_LIMITS = 'token=10000000/1m';
const MB = 1024 * 1024;
const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 100;

interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startServer(
  entry: string,
  flags: readonly string[],
  env: Record<string, string>,
  pinning: Pinning | null,
): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = [...flags, join(ROOT, entry)];
  const [file, args] = pinning
    ? ['taskset', ['-c', pinning.servers, process.execPath, ...node]]
    : [process.execPath, node];
  const child = spawn(file, args, {
    env: childEnv({
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: env.APP_URL ?? url,
      BASE_URL: env.BASE_URL ?? url,
      COOKIE_KEYS,
      ENCRYPTION_KEY: 'memory-bench-encryption-key-0123456789ab',
      RATE_LIMITS,
      LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForStatus(`${url}/health/ready`, 200, 60_000);
  return {
    url,
    child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident size now and its high-water mark (bytes), and CPU seconds used, of a process. */
function sample(pid: number): { rss: number; peak: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  // /proc/<pid>/stat: fields 14 and 15 (utime, stime) after the parenthesised command name.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpuSeconds: ticks / TICKS_PER_SECOND };
}

/** Live refresh-token chains and one access token, through the real authorization flow. */
async function prepareGrants(database: TestDatabase, authUrl: string) {
  const knex = database.db.knex;
  const user = await insertUser(knex);
  const browser = new FlowBrowser(authUrl);
  const pool: Chain[] = [];
  let accessToken = '';
  for (let i = 0; i < CLIENTS; i++) {
    const client = await insertClient(knex, { scopes: [SCOPE] });
    for (let g = 0; g < GRANTS_PER_CLIENT; g++) {
      const tokens = await issueTokens(authUrl, client, user, [SCOPE], browser);
      pool.push({ clientId: client.client.id, secret: client.secret!, refreshToken: tokens.refresh_token });
      accessToken = tokens.access_token;
    }
  }
  return { pool, accessToken };
}

/** Refresh grants with rotation against `url` for SECONDS (generator in this process). */
async function refreshLoad(url: string, pool: Chain[], connections: number): Promise<number> {
  const clock: Clock = { started: performance.now(), lastAnswer: 0, answers: 0 };
  await autocannon({
    url,
    connections,
    duration: SECONDS,
    requests: rotatingRefreshRequests(pool, '/v2/auth/oauth2/token', clock),
  });
  return clock.answers;
}

/** Authorized GETs of /v2/me (generator in its own process, pinned). */
async function apiLoad(url: string, accessToken: string, connections: number, pinning: Pinning | null) {
  const result = await runAutocannon(
    {
      url: `${url}/v2/me`,
      headers: { authorization: `Bearer ${accessToken}` },
      connections,
      durationSeconds: SECONDS,
    },
    pinning,
  );
  return result.requests;
}

interface Row {
  flags: string;
  process: string;
  load: string;
  /** Resident size when the load began, its largest sample during the load, and the process's high-water mark. */
  startMb: number;
  peakMb: number;
  highWaterMb: number;
  requestsPerSecond: number;
  cpuUsPerRequest: number;
}

/** Runs `load` against `server`, returning the row of figures. */
async function measure(
  server: Server,
  labels: Pick<Row, 'flags' | 'process' | 'load'>,
  load: () => Promise<number>,
): Promise<Row> {
  const pid = server.child.pid!;
  const before = sample(pid);
  // The resident size is sampled during the load itself: the high-water mark since start would
  // also hold the set-up's sign-ins (scrypt takes 32 MB per password check, returned after).
  let peak = before.rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, sample(pid).rss);
  }, SAMPLE_MS);
  const started = performance.now();
  const requests = await load().finally(() => clearInterval(sampler));
  const seconds = (performance.now() - started) / 1000;
  const after = sample(pid);
  return {
    ...labels,
    startMb: Math.round(before.rss / MB),
    peakMb: Math.round(Math.max(peak, after.rss) / MB),
    highWaterMb: Math.round(after.peak / MB),
    requestsPerSecond: Math.round(requests / seconds),
    cpuUsPerRequest: Math.round(((after.cpuSeconds - before.cpuSeconds) * 1e6) / Math.max(1, requests)),
  };
}

type EntryKind = 'source' | 'bundle';
const SOURCES = {
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
  start: 'services/launcher/src/start.ts',
};
const entryOf = (kind: EntryKind, name: keyof typeof SOURCES) =>
  kind === 'source' ? SOURCES[name] : `dist/bundle/bin/${name}.mjs`;

function entryKinds(): EntryKind[] {
  const kinds = (process.env.BENCH_MEMORY_ENTRIES ?? 'source;bundle').split(';') as EntryKind[];
  if (kinds.includes('bundle') && !existsSync(join(ROOT, 'dist/bundle/bin/inputs.json'))) {
    throw new Error('no dist/bundle: run `npm run build` first (or BENCH_MEMORY_ENTRIES=source)');
  }
  return kinds;
}

async function measureFlags(
  flags: readonly string[],
  kind: EntryKind,
  pinning: Pinning | null,
): Promise<Row[]> {
  const label = `${kind}: ${flags.length === 0 ? '(V8 defaults)' : flags.join(' ')}`;
  const rows: Row[] = [];
  const database = await createTestDatabase();
  const backends = { DATABASE_URL: database.url!, REDIS_URL: process.env.REDIS_URL! };
  try {
    const auth = await startServer(entryOf(kind, 'auth'), flags, backends, pinning);
    const api = await startServer(entryOf(kind, 'api'), flags, { ...backends, APP_URL: auth.url }, pinning);
    try {
      const { pool, accessToken } = await prepareGrants(database, auth.url);
      rows.push(
        await measure(auth, { flags: label, process: 'auth (standalone)', load: 'refresh grants' }, () =>
          refreshLoad(auth.url, pool, CONNECTIONS),
        ),
      );
      rows.push(
        await measure(api, { flags: label, process: 'api (standalone)', load: 'GET /v2/me' }, () =>
          apiLoad(api.url, accessToken, CONNECTIONS, pinning),
        ),
      );
    } finally {
      await Promise.all([auth.stop(), api.stop()]);
    }
    const all = await startServer(entryOf(kind, 'start'), flags, backends, pinning);
    try {
      const { pool, accessToken } = await prepareGrants(database, all.url);
      rows.push(
        await measure(all, { flags: label, process: 'all-in-one', load: 'both at once' }, async () => {
          const [refreshes, reads] = await Promise.all([
            refreshLoad(all.url, pool, CONNECTIONS / 2),
            apiLoad(all.url, accessToken, CONNECTIONS / 2, pinning),
          ]);
          return refreshes + reads;
        }),
      );
    } finally {
      await all.stop();
    }
  } finally {
    await database.drop();
  }
  return rows;
}

function flagSets(): Array<readonly string[]> {
  const given = process.env.BENCH_MEMORY_FLAGS;
  if (!given) return [SERVICE_NODE_FLAGS, []];
  return given.split(';').map((set) => (set.trim() === '-' ? [] : set.trim().split(/\s+/)));
}

export async function run(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    console.log('skipped: the memory report needs DATABASE_URL and REDIS_URL (standalone services)');
    return;
  }
  const pinning = choosePinning();
  console.log(
    `${SECONDS} s per load, ${CONNECTIONS} connections; ${pinning ? `servers on CPU ${pinning.servers}, generators on CPU ${pinning.generator}` : 'not pinned'}`,
  );
  const rows: Row[] = [];
  for (const kind of entryKinds()) {
    for (const flags of flagSets()) rows.push(...(await measureFlags(flags, kind, pinning)));
  }
  console.table(rows);
  for (const row of rows) {
    const budget = row.process === 'all-in-one' ? 250 : 150;
    console.log(
      `${row.flags} | ${row.process}: peak ${row.peakMb} MB of a ${budget} MB budget${row.peakMb > budget ? ' (over)' : ''}`,
    );
  }
  for (const [body, count] of failures) console.log(`unexpected answer (${count}x): ${body.slice(0, 200)}`);
}
