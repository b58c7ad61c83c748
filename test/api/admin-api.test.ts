import { routes } from '@sched/api/routes/index';
import test from 'ava';
import { adminAuditEvents, type AuditEventOutput } from '../support/audit.ts';
import { insertClient, insertOrganization, insertUser } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * The admin API (service administrators only; 403 for anyone else), from outside: every route
 * declared `admin` and every path under /v2/admin/ refuses other users with the same 403 whatever
 * the ids name (so nothing is looked up and no id is confirmed), anonymous callers with 401; an
 * administrator demoted is refused on the next request. Organizations made and switched through it
 * are audited like every other change.
 */

const { call, knex, admin } = setUpWorld(test);

const ADMIN_ONLY = 'Only service administrators may use the admin API';
const adminRoutes = routes.filter((route) => route.auth === 'admin');

/** A concrete path of the route: `:param` filled by `fill`. */
const pathOf = (path: string, fill: (param: string) => string) =>
  `/v2${path.replace(/:(\w+)/g, (_, param: string) => fill(param))}`;

test('every admin route is declared admin, and the list is what the contract and docs name', (t) => {
  t.deepEqual(
    routes.filter((route) => route.path.startsWith('/admin/') && route.auth !== 'admin').map((r) => r.path),
    [],
  );
  const names = adminRoutes.map((route) => `${route.method} ${route.path}`);
  for (const named of [
    'POST /admin/users',
    'POST /admin/organizations',
    'PATCH /admin/organizations/:orgId',
    'GET /admin/oauth-clients',
    'POST /admin/oauth-clients/:clientId/approve',
    'POST /admin/oauth-clients/:clientId/reject',
    'GET /admin/audit-events',
  ])
    t.true(names.includes(named), named);
});

test('anyone but a service administrator: 403 before any lookup or validation, the same for real and unknown ids; anonymous 401', async (t) => {
  const person = await insertUser(knex());
  const orgId = await insertOrganization(knex());
  const { client } = await insertClient(knex(), { status: 'PENDING' });
  const real: Record<string, string> = { orgId: String(orgId), clientId: client.id, id: 'rs_unknown' };
  const unknown = (param: string) => (param === 'orgId' ? '987654321' : 'no-such-thing');
  const shapeOf = (body: { status: string; error: { code: string; message: string }; data?: unknown }) => ({
    status: body.status,
    code: body.error.code,
    message: body.error.message,
    data: body.data,
  });
  for (const route of adminRoutes) {
    const label = `${route.method} ${route.path}`;
    // A body that would fail validation, and one that would pass for most routes: neither matters.
    for (const body of [{ unexpected: true }, { reason: 'x', pbacEnabled: true, name: 'N', slug: 'n' }]) {
      const answers = await Promise.all(
        [pathOf(route.path, (param) => real[param] ?? '1'), pathOf(route.path, unknown)].map((path) =>
          call(route.method, path, { token: person.apiKey, body: route.method === 'GET' ? undefined : body }),
        ),
      );
      for (const answer of answers) {
        t.is(answer.status, 403, label);
        t.deepEqual(shapeOf(answer.body), {
          status: 'error',
          code: 'Forbidden',
          message: ADMIN_ONLY,
          data: undefined,
        });
      }
    }
    const anonymous = await call(route.method, pathOf(route.path, unknown));
    t.is(anonymous.status, 401, label);
    t.regex(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/, label);
  }
  // Nothing was changed by the refused calls.
  const [org] = await knex()('organizations').where({ id: orgId }).select('pbac_enabled');
  t.false(org.pbac_enabled);
  const [row] = await knex()('oauth_clients').where({ id: client.id }).select('review_status');
  t.is(row.review_status, 'PENDING');
});

test('an administrator demoted is refused on the next request; promoted, allowed on the next', async (t) => {
  const operator = await insertUser(knex(), { serviceAdmin: true });
  t.is((await call('GET', '/v2/admin/audit-events?take=1', { token: operator.apiKey })).status, 200);
  await knex()('users').where({ id: operator.id }).update({ is_service_admin: false });
  const refused = await call('GET', '/v2/admin/audit-events?take=1', { token: operator.apiKey });
  t.is(refused.status, 403);
  t.is(refused.body.error.message, ADMIN_ONLY);
  await knex()('users').where({ id: operator.id }).update({ is_service_admin: true });
  t.is((await call('GET', '/v2/admin/audit-events?take=1', { token: operator.apiKey })).status, 200);
});

const eventsOf = async (organizationId: number): Promise<AuditEventOutput[]> =>
  (await adminAuditEvents({ call, admin }, 'take=250')).filter(
    (event) => event.organizationId === organizationId,
  );

test('POST /v2/admin/organizations and PATCH .../{orgId}: organization.created with the owner’s membership.added, organization.updated with before and after', async (t) => {
  const owner = await insertUser(knex());
  const made = await call('POST', '/v2/admin/organizations', {
    token: admin.apiKey,
    body: { name: 'Audited Org', slug: `audited-${owner.id}`, ownerUserId: owner.id },
    headers: { 'x-request-id': 'admin-org-create' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const orgId = made.body.data.id as number;
  const created = await eventsOf(orgId);
  t.deepEqual(
    created.map((event) => event.action),
    ['membership.added', 'organization.created'],
  );
  for (const event of created)
    t.like(event, { actor: { type: 'api_key', userId: admin.id }, requestId: 'admin-org-create' });
  t.like(created[1], {
    target: { type: 'organization', id: String(orgId) },
    before: null,
    after: { name: 'Audited Org', slug: `audited-${owner.id}`, pbacEnabled: false },
    details: { ownerUserId: owner.id },
  });
  t.like(created[0], {
    target: { type: 'membership' },
    after: { userId: owner.id, organizationId: orgId, role: 'OWNER', accepted: true },
  });
  t.truthy(created[0]!.ipAddress);

  const switched = await call('PATCH', `/v2/admin/organizations/${orgId}`, {
    token: admin.apiKey,
    body: { pbacEnabled: true },
    headers: { 'x-request-id': 'admin-org-pbac' },
  });
  t.is(switched.status, 200, JSON.stringify(switched.body));
  const [updated] = await eventsOf(orgId);
  t.like(updated, {
    action: 'organization.updated',
    actor: { type: 'api_key', userId: admin.id },
    target: { type: 'organization', id: String(orgId) },
    before: { pbacEnabled: false },
    after: { pbacEnabled: true },
    requestId: 'admin-org-pbac',
  });
  // The same value again changes nothing: no event.
  t.is(
    (
      await call('PATCH', `/v2/admin/organizations/${orgId}`, {
        token: admin.apiKey,
        body: { pbacEnabled: true },
      })
    ).status,
    200,
  );
  t.is((await eventsOf(orgId)).length, 3);
  // A refused creation (slug taken) writes nothing.
  const taken = await call('POST', '/v2/admin/organizations', {
    token: admin.apiKey,
    body: { name: 'Again', slug: `audited-${owner.id}`, ownerUserId: owner.id },
  });
  t.is(taken.status, 409);
  const [last] = await adminAuditEvents({ call, admin }, 'take=1');
  t.not(last!.action, 'organization.created');
});

test('a cursor naming an impossible time is a 400 on both audit lists, never a 500', async (t) => {
  const owner = await insertUser(knex());
  const orgId = await insertOrganization(knex());
  await knex()('memberships').insert({
    user_id: owner.id,
    organization_id: orgId,
    role: 'OWNER',
    accepted: true,
  });
  for (const at of [
    '2026-02-30T10:00:00.000000Z',
    '2026-13-01T10:00:00.000000Z',
    '0000-01-01T00:00:00.000000Z',
  ]) {
    const cursor = Buffer.from(JSON.stringify({ at, id: 5 })).toString('base64url');
    for (const [path, token] of [
      ['/v2/admin/audit-events', admin.apiKey],
      [`/v2/organizations/${orgId}/audit-events`, owner.apiKey],
    ] as const) {
      const answer = await call('GET', `${path}?cursor=${cursor}`, { token });
      t.is(answer.status, 400, `${path} ${at}`);
      t.is(answer.body.error.code, 'BadRequest');
      t.deepEqual(answer.body.error.details, [
        { field: 'query.cursor', message: 'not a cursor of this list (use pagination.nextCursor)' },
      ]);
    }
  }
  // A real one still pages.
  const cursor = Buffer.from(JSON.stringify({ at: '2026-02-28T10:00:00.000000Z', id: 5 })).toString(
    'base64url',
  );
  t.is((await call('GET', `/v2/admin/audit-events?cursor=${cursor}`, { token: admin.apiKey })).status, 200);
});
