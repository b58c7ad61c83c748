import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { insertClient, insertUser } from '../support/factories.ts';
import { gatewayAvailable, setUpTestGateway } from '../support/gateway.ts';
import { describeFailures, type LoadOutcome, type LoadRequest, startLoad } from '../support/load.ts';
import { clientCredentials, issueTokens } from '../support/oauth.ts';

// Processes come and go under steady load: a rolling restart (SIGTERM, one process at a time) fails
// no request; a killed API process fails only requests it had in flight, and only non-idempotent
// ones (nginx replays the others on the other process).

const WORKERS = 4;
/** Each worker's pause between requests: steady traffic, with CPU left for processes starting. */
const PAUSE_MS = 10;
const serial = gatewayAvailable() ? test.serial : test.serial.skip;
const gateway = gatewayAvailable()
  ? setUpTestGateway(test, { auth: 2, api: 2, env: { RATE_LIMITS: 'introspect=1000000/1m' } })
  : undefined;

/** API reads, a POST the API refuses (405, no side effect), discovery and introspection. */
async function mixedRequests(): Promise<LoadRequest[]> {
  const knex = gateway!.database.db.knex;
  const user = await insertUser(knex);
  const client = await insertClient(knex, { ownerUserId: user.id, scopes: ['PROFILE_READ'] });
  const tokens = await issueTokens(gateway!.url, client, user, ['PROFILE_READ']);
  const bearer = { authorization: `Bearer ${tokens.access_token}` };
  const url = (path: string) => `${gateway!.url}${path}`;
  return [
    { method: 'GET', url: url('/v2/me'), headers: bearer, expect: 200 },
    {
      method: 'POST',
      url: url('/v2/me'),
      headers: { ...bearer, 'content-type': 'application/json' },
      body: '{}',
      expect: 405,
    },
    { method: 'GET', url: url('/.well-known/oauth-authorization-server'), expect: 200 },
    {
      method: 'POST',
      url: url('/v2/auth/oauth2/introspect'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...clientCredentials(client), token: tokens.access_token }).toString(),
      expect: 200,
    },
  ];
}

/** The failures, with nginx's error log (which process refused or failed, when) and the services' output. */
async function diagnosis(outcomes: readonly LoadOutcome[], events: readonly string[]): Promise<string> {
  const errors = await readFile(join(gateway!.gateway.dir, 'error.log'), 'utf8').catch(() => '');
  // What each service process printed (warnings and errors: a crash, a shutdown timeout).
  const services = [...gateway!.gateway.auth, ...gateway!.gateway.api].map(
    (process) => `${process.name}:\n${process.output().slice(-4000)}`,
  );
  return [describeFailures(outcomes), 'events:', ...events, 'nginx error.log:', errors, ...services].join(
    '\n',
  );
}

serial('a rolling restart of every process under steady load fails no request', async (t) => {
  const load = startLoad(await mixedRequests(), WORKERS, PAUSE_MS);
  await load.progress(100);
  const restarted: string[] = [];
  const events: string[] = [];
  await gateway!.gateway.rollingRestart((process) => {
    restarted.push(process.name);
    events.push(`${new Date().toISOString()} ${process.name} (port ${process.port}) restarted and settled`);
  });
  await load.progress(100);
  const outcomes = await load.stop();
  t.deepEqual(restarted, ['auth-1', 'auth-2', 'api-1', 'api-2']);
  t.true(outcomes.length > 400, `${outcomes.length} requests`);
  t.is(outcomes.filter((outcome) => !outcome.ok).length, 0, await diagnosis(outcomes, events));
});

serial('kill -9 of an API process fails at most its in-flight non-idempotent requests', async (t) => {
  const load = startLoad(await mixedRequests(), WORKERS, PAUSE_MS);
  await load.progress(100);
  const victim = gateway!.gateway.api[0]!;
  await victim.stop('SIGKILL');
  await load.progress(200);
  const outcomes = await load.stop();
  const failed = outcomes.filter((outcome) => !outcome.ok);
  t.true(failed.length <= WORKERS, describeFailures(outcomes));
  for (const outcome of failed) {
    // Only a POST that had reached the killed process: nginx answers 502 and does not replay it.
    t.is(outcome.method, 'POST', describeFailures(outcomes));
    t.is(outcome.status, 502, describeFailures(outcomes));
  }
  // The gateway goes on with the survivor, and takes the process back once it runs again.
  await victim.start();
  const after = startLoad(await mixedRequests(), WORKERS, PAUSE_MS);
  await after.progress(100);
  const later = await after.stop();
  t.is(later.filter((outcome) => !outcome.ok).length, 0, describeFailures(later));
});
