import { createServer, type Server } from 'node:http';
import { createApiApp } from '@sched/api/app';
import { type RunningServer, startServiceServer } from '@sched/kit/http/server';
import { createLogger } from '@sched/kit/logger';
import Koa from 'koa';
import { startTestSystem } from '../../support/system.ts';
import { createTestAccessToken } from '../../support/tokens.ts';
import {
  insertCustomRole,
  insertMemberships,
  insertOrganization,
  insertTeam,
  insertUsers,
} from '../../api/helpers/fixtures.ts';
import { type Measurement, measure, printRatio, printTable } from '../measure.ts';

/**
 * Issue 4: an authorized GET of a team membership with an OAuth token (scope TEAM_MEMBERSHIP_READ
 * checked, team access through the caller's organization role ADMIN, PBAC on and evaluated: the
 * caller's custom role lacks team.listMembers, so the role check decides) at 50 connections,
 * beside a bare Koa handler returning the same JSON, measured in the same run.
 * Goal: at least 50% of the bare handler's requests/s and p99 under 20 ms.
 * BENCH_DURATION (seconds, default 10) and BENCH_ROUNDS (default 3) set the length and number of
 * the alternating runs; the medians are reported. A third line shows the API app answering an
 * unknown route (the HTTP stack alone) to tell access-control cost from framework cost.
 */
/** The run with the median requests/s (its own p50/p99). */
function median(runs: Measurement[]): Measurement {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function run(): Promise<void> {
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  const system = await startTestSystem();
  let bare: Server | undefined;
  let api: RunningServer | undefined;
  try {
    const knex = system.stores.db.knex;
    const orgId = await insertOrganization(knex, { pbacEnabled: true });
    const teamId = await insertTeam(knex, orgId);
    const [caller, member] = await insertUsers(knex, 2);
    const customRoleId = await insertCustomRole(knex, orgId, ['booking.read']);
    const [, membershipId] = await insertMemberships(knex, [
      { userId: caller!.id, organizationId: orgId, role: 'ADMIN', customRoleId },
      { userId: member!.id, teamId, role: 'MEMBER' },
    ]);
    const token = await createTestAccessToken(system.stores, {
      userId: caller!.id,
      scopes: ['TEAM_MEMBERSHIP_READ'],
    });
    // The API as production runs it (services/api/src/main.ts): the kit's service server in front of
    // the API app, on the test system's database and Redis.
    api = await startServiceServer({
      name: 'api',
      port: 0,
      host: '127.0.0.1',
      logger: createLogger({ level: 'silent' }),
      handler: createApiApp({
        config: { ...system.config, cookieKeys: ['bench-cookie-key-0123456789abcdefghij'] },
        logger: createLogger({ level: 'silent' }),
        stores: system.stores,
        mailer: { send: async () => {}, close: () => {} },
        close: async () => {},
      }).callback(),
      checks: [],
      onClose: async () => {},
      shutdownTimeoutMs: 1000,
    });
    const url = `${api.url}/v2/organizations/${orgId}/teams/${teamId}/memberships/${membershipId}`;
    const headers = { authorization: `Bearer ${token}` };
    const first = await fetch(url, { headers });
    if (first.status !== 200)
      throw new Error(`authorized GET answered ${first.status}: ${await first.text()}`);
    const json = await first.text();

    const app = new Koa();
    app.use((ctx) => {
      ctx.type = 'application/json';
      ctx.body = json;
    });
    bare = createServer(app.callback());
    await new Promise<void>((resolve) => bare!.listen(0, '127.0.0.1', resolve));
    const barePort = (bare.address() as { port: number }).port;

    const backend = `${system.database.url ? 'Postgres' : 'PGlite'} + ${system.redis ? 'Redis' : 'SQL token store'}`;
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    console.log(
      `backend: ${backend}; 50 connections; ${rounds} alternating rounds of ${duration} s, medians reported`,
    );
    const targets = {
      api: { label: 'GET team membership (OAuth, scope + org role + PBAC)', url, headers },
      bare: { label: 'bare Koa, same JSON', url: `http://127.0.0.1:${barePort}/` },
      floor: {
        label: 'API app, unknown route (404: HTTP stack only)',
        url: `${system.url}/v2/bench-no-such-route`,
      },
    };
    // Warm up (JIT, caches), then alternate so a busy machine weighs on each alike.
    await measure('warm-up', { url, headers, duration: 2 });
    await measure('warm-up', { url: targets.bare.url, duration: 2 });
    const runs: Record<keyof typeof targets, Measurement[]> = { api: [], bare: [], floor: [] };
    for (let round = 0; round < rounds; round++) {
      const order: Array<keyof typeof targets> =
        round % 2 === 0 ? ['api', 'bare', 'floor'] : ['bare', 'api', 'floor'];
      for (const key of order) {
        const target = targets[key];
        runs[key].push(
          await measure(target.label, {
            url: target.url,
            ...('headers' in target ? { headers: target.headers } : {}),
            duration,
          }),
        );
      }
    }
    const authorized = median(runs.api);
    const baseline = median(runs.bare);
    printTable([authorized, baseline, median(runs.floor)]);
    if (runs.api.some((run) => run.non2xx > 0 || run.errors > 0))
      console.log('WARNING: the authorized GET had non-2xx answers or errors');
    const floor = median(runs.floor);
    printRatio(
      'authorized GET vs bare Koa (requests/s)',
      authorized.requestsPerSecond,
      baseline.requestsPerSecond,
      '>= 50%',
    );
    printRatio(
      'authorized GET vs the API app answering 404 (requests/s)',
      authorized.requestsPerSecond,
      floor.requestsPerSecond,
    );
    console.log(
      `authorized GET p99: ${authorized.p99Ms} ms (goal: < 20 ms); bare Koa p99: ${baseline.p99Ms} ms`,
    );
  } finally {
    await new Promise<void>((resolve) => (bare ? bare.close(() => resolve()) : resolve()));
    await api?.close();
    await system.close();
  }
}
