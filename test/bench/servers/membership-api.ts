import type { Server } from 'node:http';
import { createApiApp } from '@sched/api/app';
import { membershipOutput } from '@sched/api/presenters/membership';
import { defineRoute } from '@sched/api/routing/route';
import type { Stores } from '@sched/db/stores';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import { loadConfig } from '@sched/kit/config';
import { answerJson } from '@sched/kit/http/answer-headers';
import { serviceEntry } from '@sched/kit/http/service-entry';
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
import { announceReady, closePlain, counted, listenPlain } from '../pinned/server-side.ts';

/**
 * The API side of the membership-read benchmark, in a process of its own (the bare Koa baseline
 * is another, bare-koa.ts; the load generator a third, each pinned: test/bench/pinned). Serves the
 * API app as production runs it (the kit's service server in front of `createApiApp`, log level
 * `info`, NODE_ENV=production) on its own database and Redis prefix, counter `api` (its 404 on an
 * unknown route counts there too); and the layers between bare Koa and the API (counters `kit`,
 * `route`, `token`; see MembershipApiReady.layerUrls).
 *
 * Run directly (`node --max-semi-space-size=64 <this file>`) it prints its URLs and token as JSON
 * and stays up until SIGINT / SIGTERM: for `--cpu-prof`, `--heap-prof` or callgrind.
 */

export interface MembershipApiReady {
  backend: string;
  apiUrl: string;
  /** The API app answering an unknown route: its HTTP stack and error rendering alone. */
  notFoundUrl: string;
  /**
   * The cost of each layer, one at a time (BENCH_LAYERS=1): `kit`, bare Koa plus the API's entry
   * middleware (request id, metrics, security headers written with the answer, error envelope),
   * answering the same object serialized per request; `route`, the API app with
   * one public route answering the same data (router, mount, validation, envelope); `token`, the
   * API app with one route that needs an OAuth token with a scope (plus the token-store read).
   */
  layerUrls: { kit: string; route: string; token: string };
  headers: Record<string, string>;
  /** The JSON text the API answers (the baseline answers the same). */
  json: string;
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

const payload: unknown = JSON.parse(json);

// The layers, each on a plain server like the bare handler's (see ReadyMessage.layerUrls).
const data: unknown = (payload as { data: unknown }).data;
const kitApp = new Koa();
kitApp.silent = true;
kitApp.use(
  serviceEntry({ service: 'api', logger, accessLog: false, publicUrl: 'http://127.0.0.1', bearerCors: true }),
);
kitApp.use((ctx) => {
  answerJson(ctx, 200, JSON.stringify(payload));
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
async function serveLayer(key: string, callback: Parameters<typeof counted>[1]): Promise<string> {
  const { server, url } = await listenPlain(counted(key, callback));
  layerServers.push(server);
  return url;
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

const ready: MembershipApiReady = {
  backend: `${database.url ? 'Postgres' : 'PGlite'} + ${redis ? 'Redis' : 'SQL token store'}`,
  apiUrl,
  notFoundUrl: `${api.url}/v2/bench-no-such-route`,
  layerUrls,
  headers,
  json,
};

announceReady(ready, async () => {
  await closePlain(...layerServers);
  await api.close();
  await redis?.drop().catch(() => {});
  await database.drop();
});
