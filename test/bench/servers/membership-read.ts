import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { createApiApp } from '@sched/api/app';
import { membershipOutput } from '@sched/api/presenters/membership';
import { defineRoute } from '@sched/api/routing/route';
import type { Stores } from '@sched/db/stores';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import { loadConfig } from '@sched/kit/config';
import { errorEnvelope } from '@sched/kit/http/error-envelope';
import { requestContext } from '@sched/kit/http/request-context';
import { securityHeaders } from '@sched/kit/http/security-headers';
import { type RunningServer, startServiceServer } from '@sched/kit/http/server';
import { createLogger } from '@sched/kit/logger';
import Koa from 'koa';
import { z } from 'zod';
import {
  insertCustomRole,
  insertMemberships,
  insertOrganization,
  insertTeam,
  insertUsers,
} from '../../support/factories.ts';
import { createTestDatabase } from '../../support/database.ts';
import { createTestRedis } from '../../support/redis.ts';
import { createTestAccessToken } from '../../support/tokens.ts';
import { apiRuntime } from '../../support/api-app.ts';

/**
 * The servers of the membership-read benchmark, in a process of their own so that the load
 * generator (another process, pinned to another CPU when possible) does not share their event
 * loop. Serves:
 * - the API app as production runs it (the kit's service server in front of `createApiApp`, log
 *   level `info`, the production default), on its own database and Redis prefix;
 * - a bare Koa app answering the same JSON (same bytes, same content type; checked at start), on a
 *   plain `http.createServer` with the same keep-alive timeout.
 * Counts the requests each server answered so the parent can turn this process's CPU time into
 * CPU microseconds per request.
 *
 * Messages: sends `{type: 'ready', ...}`; answers `{type: 'stats'}` with `{type: 'stats', ...}`;
 * `{type: 'close'}` drops the fixtures and exits. Run directly (`npx node <this file>`) it prints
 * the ready line as JSON and stays up until SIGINT / SIGTERM: for `--cpu-prof` or callgrind.
 */

export interface ReadyMessage {
  type: 'ready';
  backend: string;
  apiUrl: string;
  bareUrl: string;
  /** The bare server answering the same bytes from a constant string (reference). */
  constantUrl: string;
  /** The API app answering an unknown route: its HTTP stack and error rendering alone. */
  notFoundUrl: string;
  /**
   * The cost of each layer, one at a time (BENCH_LAYERS=1): `kit`, bare Koa plus the kit's
   * middleware (request id, metrics, security headers, error envelope); `route`, the API app with
   * one public route answering the same data (router, mount, validation, envelope); `token`, the
   * API app with one route that needs an OAuth token with a scope (plus the token-store read).
   */
  layerUrls: { kit: string; route: string; token: string };
  headers: Record<string, string>;
  /** The body both servers answer. */
  json: string;
}

export interface StatsMessage {
  type: 'stats';
  requests: Record<ServerKey, number>;
  /** process.cpuUsage() of this process, microseconds. */
  cpuUs: number;
  /** performance.eventLoopUtilization() totals (ms), to compute the share of time the loop was busy. */
  elu: { idle: number; active: number };
  /** Bytes allocated on the JS heap so far (growth of the used heap between collections, summed). */
  allocatedBytes: number;
}

const database = await createTestDatabase();
const redis = await createTestRedis();
const tokenStore = redis
  ? createRedisTokenStore({ redis: redis.redis, prefix: redis.prefix })
  : createSqlTokenStore({ knex: database.db.knex });
const stores: Stores = {
  db: database.db,
  tokenStore,
  redis: redis?.redis,
  checks: [],
  close: async () => {},
};
const knex = database.db.knex;

// The scenario of issue 4: the caller is an ADMIN of the organization through a custom role that
// lacks team.listMembers (PBAC on and evaluated, then the role decides); the membership read is
// another user's membership of one of the organization's teams.
const orgId = await insertOrganization(knex, { pbacEnabled: true });
const teamId = await insertTeam(knex, orgId);
const [caller, member] = await insertUsers(knex, 2);
const customRoleId = await insertCustomRole(knex, orgId, ['booking.read']);
const [, membershipId] = await insertMemberships(knex, [
  { userId: caller!.id, organizationId: orgId, role: 'ADMIN', customRoleId },
  { userId: member!.id, teamId, role: 'MEMBER' },
]);
const token = await createTestAccessToken(stores, { userId: caller!.id, scopes: ['TEAM_MEMBERSHIP_READ'] });

// The access log is off by default here (its cost is measured apart: ACCESS_LOG=true npm run bench ...).
// Production: what is measured is what production runs (outside it, answers are checked against their declarations).
const config = loadConfig({
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  ACCESS_LOG: process.env.ACCESS_LOG ?? 'false',
});
const logger = createLogger({ level: config.logLevel });
const runtime = apiRuntime(config, stores, logger);
export type ServerKey = 'api' | 'bare' | 'kit' | 'route' | 'token';
const counts: Record<ServerKey, number> = { api: 0, bare: 0, kit: 0, route: 0, token: 0 };
const counted =
  (key: ServerKey, handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse) => {
    counts[key]++;
    handler(req, res);
  };

const api: RunningServer = await startServiceServer({
  name: 'api',
  port: 0,
  host: '127.0.0.1',
  logger,
  handler: counted('api', createApiApp(runtime).callback()),
  checks: [],
  onClose: async () => {},
  shutdownTimeoutMs: 1000,
});
const apiUrl = `${api.url}/v2/organizations/${orgId}/teams/${teamId}/memberships/${membershipId}`;
const headers = { authorization: `Bearer ${token}` };
const first = await fetch(apiUrl, { headers });
if (first.status !== 200) throw new Error(`authorized GET answered ${first.status}: ${await first.text()}`);
const json = await first.text();

// The same JSON, produced the way a Koa handler produces JSON: an object body that Koa serializes
// on every request, as the API serializes its answer on every request.
const payload: unknown = JSON.parse(json);
const bareApp = new Koa();
bareApp.use((ctx) => {
  ctx.body = payload;
});
// For reference only: the same bytes as a constant string (no serialization per request).
const constantApp = new Koa();
constantApp.use((ctx) => {
  ctx.type = 'application/json';
  ctx.body = json;
});
const bareCallback = bareApp.callback();
const constantCallback = constantApp.callback();
const bare: Server = createServer(
  counted('bare', (req, res) =>
    req.url === '/constant' ? constantCallback(req, res) : bareCallback(req, res),
  ),
);
// The same keep-alive bound as the service server (Node's default is the same 5 s today).
bare.keepAliveTimeout = api.server.keepAliveTimeout;
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const barePort = (bare.address() as { port: number }).port;

const bareAnswer = await fetch(`http://127.0.0.1:${barePort}/`);
if (
  (await bareAnswer.text()) !== json ||
  bareAnswer.headers.get('content-type') !== first.headers.get('content-type')
) {
  throw new Error('the bare handler does not answer the same JSON as the API');
}

// The layers, each on a plain server like the bare handler's (see ReadyMessage.layerUrls).
const data: unknown = (payload as { data: unknown }).data;
const kitApp = new Koa();
kitApp.silent = true;
kitApp.use(requestContext('api', logger, { accessLog: false }));
kitApp.use(securityHeaders({ publicUrl: 'http://127.0.0.1' }));
kitApp.use(errorEnvelope());
kitApp.use((ctx) => {
  ctx.body = payload;
});
const layerRoute = (auth: 'public' | 'user') =>
  defineRoute({
    method: 'GET',
    path: '/layer/:id',
    summary: `layer probe (${auth})`,
    tags: ['Bench'],
    auth,
    scope: 'TEAM_MEMBERSHIP_READ',
    response: {
      status: 200,
      description: 'the memberships of the api server',
      schema: z.array(membershipOutput),
    },
    handler: async () => ({ data: data as z.output<typeof membershipOutput>[] }),
  });
const layerServers: Server[] = [];
async function serveLayer(key: ServerKey, callback: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(counted(key, callback));
  server.keepAliveTimeout = api.server.keepAliveTimeout;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  layerServers.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}
const layerUrls = {
  kit: `${await serveLayer('kit', kitApp.callback())}/`,
  route: `${await serveLayer('route', createApiApp(runtime, [layerRoute('public')]).callback())}/v2/layer/1`,
  token: `${await serveLayer('token', createApiApp(runtime, [layerRoute('user')]).callback())}/v2/layer/1`,
};
for (const url of Object.values(layerUrls)) {
  const answer = await fetch(url, { headers });
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
}

const ready: ReadyMessage = {
  type: 'ready',
  backend: `${database.url ? 'Postgres' : 'PGlite'} + ${redis ? 'Redis' : 'SQL token store'}`,
  apiUrl,
  bareUrl: `http://127.0.0.1:${barePort}/`,
  constantUrl: `http://127.0.0.1:${barePort}/constant`,
  notFoundUrl: `${api.url}/v2/bench-no-such-route`,
  layerUrls,
  headers,
  json,
};

/**
 * Allocation: V8 does not count allocated bytes, but the used heap only grows between collections,
 * so allocated = the growth before each collection (GCProfiler reports the heap before and after
 * each one) plus the growth since the last one.
 */
let allocatedBytes = 0;
let usedAfterLastGc = getHeapStatistics().used_heap_size;
let gcProfiler = new GCProfiler();
gcProfiler.start();
function countAllocation(): void {
  const report = gcProfiler.stop();
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  for (const gc of report?.statistics ?? []) {
    allocatedBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - usedAfterLastGc);
    usedAfterLastGc = gc.afterGC.heapStatistics.usedHeapSize;
  }
  const used = getHeapStatistics().used_heap_size;
  allocatedBytes += Math.max(0, used - usedAfterLastGc);
  usedAfterLastGc = used;
}

function stats(): StatsMessage {
  countAllocation();
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  return {
    type: 'stats',
    requests: { ...counts },
    cpuUs: cpu.user + cpu.system,
    elu: { idle: elu.idle, active: elu.active },
    allocatedBytes,
  };
}

let closing = false;
async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  for (const server of [bare, ...layerServers]) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  }
  await api.close();
  await redis?.drop().catch(() => {});
  await database.drop();
  process.exit(0);
}

if (process.send) {
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stats') process.send!(stats());
    if (message.type === 'close') void close();
  });
  process.send(ready);
} else {
  console.log(JSON.stringify(ready));
}
process.on('SIGINT', () => void close());
process.on('SIGTERM', () => void close());
