import test from 'ava';
import { adminAuditEvents, type AuditEventOutput } from '../support/audit.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * Audit events of custom roles and their permissions: created, updated (before and after name,
 * color, description, permissions), deleted, and each permission change, with the organization set,
 * so its admins see them. A refused escalation (403) writes nothing.
 */

const { call, knex, admin } = setUpWorld(test);

const ofRole = async (roleId: string): Promise<AuditEventOutput[]> =>
  (await adminAuditEvents({ call, admin }, `targetType=role&targetId=${roleId}`)).toReversed();

test('a custom role and its permissions: every change has its event with before/after and the organization; a 403 escalation writes none', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      admin: { org: 'ADMIN' },
      delegate: { org: 'MEMBER', permissions: ['role.create', 'role.update'] },
    },
    { pbacEnabled: true },
  );
  const token = scene.users.owner.apiKey;
  const path = `/v2/organizations/${scene.orgId}/roles`;
  const before = await call('GET', `/v2/organizations/${scene.orgId}/audit-events?targetType=role`, {
    token,
  });
  t.is(before.status, 200, JSON.stringify(before.body));

  const escalation = await call('POST', path, {
    token: scene.users.delegate.apiKey,
    body: { name: 'Everything', permissions: ['*.*'] },
  });
  t.is(escalation.status, 403);

  const created = await call('POST', path, {
    token,
    body: { name: 'Schedulers', color: '#112233', permissions: ['booking.read'] },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const roleId = created.body.data.id as string;
  const rolePath = `${path}/${roleId}`;
  const steps: Array<[string, string, unknown?]> = [
    [
      'PATCH',
      rolePath,
      { name: 'Planners', description: 'plans', permissions: ['booking.read', 'eventType.read'] },
    ],
    ['POST', `${rolePath}/permissions`, { permissions: ['booking.create'] }],
    ['PUT', `${rolePath}/permissions`, { permissions: ['booking.read', 'eventType.read'] }],
    ['DELETE', `${rolePath}/permissions/eventType.read`],
    ['DELETE', `${rolePath}/permissions?permissions=booking.read`],
    ['DELETE', rolePath],
  ];
  for (const [method, stepPath, body] of steps) {
    const answer = await call(method, stepPath, { token, ...(body === undefined ? {} : { body }) });
    t.true(answer.status < 300, `${method} ${stepPath}: ${JSON.stringify(answer.body)}`);
  }

  const list = await ofRole(roleId);
  t.deepEqual(
    list.map((event) => event.action),
    [
      'role.created',
      'role.updated',
      'role.permissions_added',
      'role.permissions_replaced',
      'role.permissions_removed',
      'role.permissions_removed',
      'role.deleted',
    ],
  );
  for (const event of list) {
    t.like(event, {
      actor: { type: 'api_key', userId: scene.users.owner.id },
      target: { type: 'role', id: roleId },
      organizationId: scene.orgId,
    });
  }
  const [createdEvent, updated, added, replaced, removedOne, removedMany, deleted] = list;
  t.deepEqual(createdEvent!.after, {
    name: 'Schedulers',
    color: '#112233',
    description: null,
    permissions: ['booking.read'],
  });
  t.deepEqual(updated!.before, createdEvent!.after);
  t.deepEqual(updated!.after, {
    name: 'Planners',
    color: '#112233',
    description: 'plans',
    permissions: ['booking.read', 'eventType.read'],
  });
  t.deepEqual(added!.after, { permissions: ['booking.create', 'booking.read', 'eventType.read'] });
  t.deepEqual(replaced!.before, added!.after);
  t.deepEqual(replaced!.after, { permissions: ['booking.read', 'eventType.read'] });
  t.deepEqual(removedOne!.after, { permissions: ['booking.read'] });
  t.deepEqual(removedMany!.after, { permissions: [] });
  t.like(deleted, { before: { name: 'Planners', permissions: [] }, after: null });

  // The organization's admins see them; the refused creation left nothing.
  const seen = await call('GET', `/v2/organizations/${scene.orgId}/audit-events?targetType=role&take=250`, {
    token: scene.users.admin.apiKey,
  });
  t.is(seen.status, 200, JSON.stringify(seen.body));
  t.is(seen.body.data.length - before.body.data.length, list.length);
});
