import test from 'ava';
import fc from 'fast-check';
import {
  insertMembership,
  insertOrganization,
  insertTeam,
  insertUser,
  type TestUser,
} from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * Property: whatever a caller sends to any operation of the OpenAPI document (hostile strings in
 * the path, the query and the body, wrong types, odd encodings), the answer is never a 5xx, and
 * every error is in the API's error envelope. Bounded so CI stays quick: a fixed seed and a few
 * runs per operation (FUZZ_RUNS raises it for a longer hunt).
 */

const world = setUpWorld(test);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);

interface Operation {
  method: string;
  path: string;
}

let operations: Operation[] = [];
let caller: TestUser;
let ids: { orgId: number; teamId: number };

test.before(async () => {
  const document = (await world.call('GET', '/v2/openapi.json')).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
  // A caller who owns an organization and a team, so id-shaped inputs reach deep code paths.
  caller = await insertUser(world.knex(), { serviceAdmin: true });
  const orgId = await insertOrganization(world.knex(), { pbacEnabled: true });
  const teamId = await insertTeam(world.knex(), orgId);
  await insertMembership(world.knex(), { userId: caller.id, organizationId: orgId, role: 'OWNER' });
  await insertMembership(world.knex(), { userId: caller.id, teamId, role: 'OWNER' });
  ids = { orgId, teamId };
});

/** Strings a hostile client sends: NUL, lone surrogates, huge, unicode, SQL and path tricks. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    "' OR 1=1 --",
    '../../etc/passwd',
    '%00',
    '%ED%A0%80',
    '%',
    '-1',
    '0',
    '1e309',
    '9007199254740993',
    'NaN',
    '*.*',
    'x'.repeat(5000),
  ),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(hostileString, fc.constantFrom('name', 'email', 'userId', 'role', 'permissions', 'accepted')),
      tie('value'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) as the bytes of one. */
const pathSegment = (value: string): string =>
  value.isWellFormed() ? encodeURIComponent(value) : `${encodeURIComponent(value.toWellFormed())}%ED%A0%80`;

/** A path segment for a `{param}`: mostly a real id (so the request gets past 404s), else hostile. */
const paramValue = (name: string) =>
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc.constant(
        name === 'orgId' ? String(ids.orgId) : name === 'teamId' ? String(ids.teamId) : '1',
      ),
    },
    { weight: 3, arbitrary: hostileString.map((value) => pathSegment(value.slice(0, 200))) },
  );

const bodyOf = fc.oneof(
  {
    weight: 4,
    arbitrary: jsonValue.map((value) => ({
      type: 'application/json',
      text: JSON.stringify(value) ?? 'null',
    })),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ type: 'application/json', text })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ type: 'text/plain', text })) },
);

function requestOf(operation: Operation) {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  return fc.record({
    params: fc
      .tuple(...names.map(paramValue))
      .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]!]))),
    query: fc.dictionary(
      fc.constantFrom(
        'skip',
        'take',
        'start',
        'end',
        'eventTypeId',
        'timeZone',
        'status',
        'permissions',
        'reviewStatus',
      ),
      hostileString,
      { maxKeys: 3 },
    ),
    body: fc.option(bodyOf, { nil: undefined }),
    credential: fc.constantFrom('apiKey', 'none', 'garbage'),
  });
}

test('no operation of the OpenAPI document answers 5xx, and every error is in the envelope', async (t) => {
  t.timeout(300_000);
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  for (const operation of operations) {
    await fc
      .assert(
        fc.asyncProperty(requestOf(operation), async (request) => {
          const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => request.params[name]!);
          const query = new URLSearchParams(request.query as Record<string, string>).toString();
          const headers: Record<string, string> = {};
          if (request.credential === 'apiKey') headers.authorization = `Bearer ${caller.apiKey}`;
          if (request.credential === 'garbage') headers.authorization = 'Bearer svc_\u00e9garbage';
          if (request.body) headers['content-type'] = request.body.type;
          let response: Response;
          try {
            response = await fetch(`${world.system.url}/v2${path}${query ? `?${query}` : ''}`, {
              method: operation.method,
              headers,
              ...(request.body && operation.method !== 'GET' ? { body: request.body.text } : {}),
            });
          } catch (error) {
            // A header fetch itself refuses to send (non-Latin-1) says nothing about the server.
            if (error instanceof TypeError && /header/i.test(String(error.message))) return true;
            throw error;
          }
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const text = await response.text();
          const where = `${operation.method} ${path}?${query} -> ${response.status} ${text.slice(0, 200)}`;
          if (response.status >= 500) {
            failures.push(where);
            return false;
          }
          if (response.status >= 400) {
            const body = JSON.parse(text) as {
              status?: string;
              error?: { code?: unknown; message?: unknown };
            };
            const inEnvelope =
              body.status === 'error' &&
              typeof body.error?.code === 'string' &&
              typeof body.error?.message === 'string';
            if (!inEnvelope) failures.push(`not in the envelope: ${where}`);
            return inEnvelope;
          }
          return true;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      .catch((error: unknown) => {
        // A failed property recorded its request already; a thrown error is a finding too.
        if (failures.length === 0)
          failures.push(`${operation.method} ${operation.path}: ${String(error).slice(0, 300)}`);
      });
  }
  t.log(
    [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', '),
  );
  t.deepEqual(failures, []);
  t.true(operations.length >= 60, `${operations.length} operations`);
});

test('the OAuth endpoints answer hostile form and JSON bodies with 4xx and an OAuth error', async (t) => {
  const form = fc.dictionary(
    fc.constantFrom(
      'grant_type',
      'client_id',
      'client_secret',
      'code',
      'refresh_token',
      'redirect_uri',
      'code_verifier',
      'token',
      'token_type_hint',
    ),
    hostileString,
    { maxKeys: 6 },
  );
  const failures: string[] = [];
  for (const path of ['/v2/auth/oauth2/token', '/v2/auth/oauth2/revoke']) {
    await fc
      .assert(
        fc.asyncProperty(form, fc.boolean(), async (params, asJson) => {
          const response = await fetch(`${world.system.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': asJson ? 'application/json' : 'application/x-www-form-urlencoded' },
            body: asJson ? JSON.stringify(params) : new URLSearchParams(params).toString(),
          });
          const text = await response.text();
          if (response.status >= 500) {
            failures.push(
              `${path} ${JSON.stringify(params).slice(0, 200)} -> ${response.status} ${text.slice(0, 200)}`,
            );
            return false;
          }
          return true;
        }),
        { numRuns: RUNS * 4, seed: SEED, endOnFailure: true },
      )
      .catch((error: unknown) => {
        if (failures.length === 0) failures.push(`${path}: ${String(error).slice(0, 300)}`);
      });
  }
  t.deepEqual(failures, []);
});
