import test from 'ava';
import { adminAuditEvents, type AuditEventOutput } from '../support/audit.ts';
import { insertUser } from '../support/factories.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * Audit events of memberships and invitations: invited, added, updated, removed, left, provisioned,
 * and the invitee's accept and decline, each with its actor, target, the organization it belongs to
 * (a team's organization for a team of one) and before/after; seen by service administrators and by
 * the organization's admins. A refused change writes no event.
 */

const { call, knex, admin } = setUpWorld(test);

type Event = AuditEventOutput;

const events = (query: string): Promise<Event[]> => adminAuditEvents({ call, admin }, query);

const ofMembership = (id: number | string) => events(`targetType=membership&targetId=${id}`);

test('an invitation to an organization and its acceptance: membership.invited by the inviter, invitation.accepted by the invitee; a duplicate (409) writes nothing', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    invitee: { team: 'MEMBER' },
  });
  const path = `/v2/organizations/${scene.orgId}/memberships`;
  const invited = await call('POST', path, {
    token: scene.users.owner.apiKey,
    body: { userId: scene.users.invitee.id, role: 'ADMIN' },
    headers: { 'x-request-id': 'audit-invite' },
  });
  t.is(invited.status, 201, JSON.stringify(invited.body));
  const membershipId = invited.body.data.id as number;

  const again = await call('POST', path, {
    token: scene.users.owner.apiKey,
    body: { userId: scene.users.invitee.id, role: 'MEMBER' },
  });
  t.is(again.status, 409);
  t.is((await events(`actor=${scene.users.owner.id}&action=membership.invited`)).length, 1);

  const accepted = await call('POST', `/v2/me/invitations/${membershipId}/accept`, {
    token: scene.users.invitee.apiKey,
  });
  t.is(accepted.status, 200, JSON.stringify(accepted.body));

  const [acceptance, invitation] = await ofMembership(membershipId);
  t.like(invitation, {
    action: 'membership.invited',
    actor: { type: 'api_key', userId: scene.users.owner.id },
    target: { type: 'membership', id: String(membershipId) },
    organizationId: scene.orgId,
    before: null,
    after: { userId: scene.users.invitee.id, role: 'ADMIN', accepted: false, organizationId: scene.orgId },
    requestId: 'audit-invite',
  });
  t.truthy(invitation!.ipAddress);
  t.like(acceptance, {
    action: 'invitation.accepted',
    actor: { type: 'api_key', userId: scene.users.invitee.id },
    organizationId: scene.orgId,
    before: { accepted: false },
    after: { accepted: true, userId: scene.users.invitee.id, role: 'ADMIN' },
  });

  // The organization's own view shows both to its owner.
  const seen = await call('GET', `/v2/organizations/${scene.orgId}/audit-events?targetType=membership`, {
    token: scene.users.owner.apiKey,
  });
  t.is(seen.status, 200, JSON.stringify(seen.body));
  const actions = (seen.body.data as Event[])
    .filter((event) => event.target.id === String(membershipId))
    .map((event) => event.action);
  t.deepEqual(actions, ['invitation.accepted', 'membership.invited']);
});

test('an invitation by e-mail keeps the address out of the event; declining writes invitation.declined', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    invitee: { org: 'MEMBER' },
  });
  const address = `audit-invitee-${Date.now()}@example.com`;
  const byEmail = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { email: address, role: 'MEMBER' },
  });
  t.is(byEmail.status, 201, JSON.stringify(byEmail.body));
  const [emailEvent] = await ofMembership(byEmail.body.data.id);
  t.like(emailEvent, { action: 'membership.invited', after: { userId: null, invitedByEmail: true } });
  t.false(JSON.stringify(emailEvent).includes(address), 'no address in the event');

  const invited = await call('POST', `/v2/teams/${scene.teamId}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { userId: scene.users.invitee.id, role: 'MEMBER', accepted: false },
  });
  t.is(invited.status, 201, JSON.stringify(invited.body));
  const declined = await call('POST', `/v2/me/invitations/${invited.body.data.id}/decline`, {
    token: scene.users.invitee.apiKey,
  });
  t.is(declined.status, 204);
  const [decline, invitation] = await ofMembership(invited.body.data.id);
  t.like(invitation, { action: 'membership.invited', organizationId: scene.orgId });
  t.like(decline, {
    action: 'invitation.declined',
    actor: { userId: scene.users.invitee.id },
    organizationId: scene.orgId,
    before: { teamId: scene.teamId, accepted: false },
    after: null,
  });
});

test("the organization's own log shows that an invitation was declined, not who declined it: no id, key, address or request, and no actor filter finds it", async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' } });
  const stranger = await insertUser(knex());
  const invited = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { email: stranger.email, role: 'MEMBER' },
  });
  t.is(invited.status, 201, JSON.stringify(invited.body));
  const id = String(invited.body.data.id);
  const declined = await call('POST', `/v2/me/invitations/${id}/decline`, { token: stranger.apiKey });
  t.is(declined.status, 204);

  const orgView = async (query: string): Promise<Event[]> => {
    const answer = await call('GET', `/v2/organizations/${scene.orgId}/audit-events?${query}`, {
      token: scene.users.owner.apiKey,
    });
    t.is(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.data as Event[];
  };
  const [decline] = (await orgView(`targetType=membership&targetId=${id}`)).filter(
    (event) => event.action === 'invitation.declined',
  );
  t.like(decline, {
    actor: { type: 'api_key', userId: null, apiKeyId: null, clientId: null },
    target: { type: 'membership', id },
    organizationId: scene.orgId,
    before: { userId: null, invitedByEmail: true, accepted: false },
    after: null,
    requestId: null,
    ipAddress: null,
  });
  t.deepEqual(decline!.details, {});
  t.deepEqual(await orgView(`actor=${stranger.id}`), []);
  // The service administrators' log still says who it was.
  const [full] = await events(`action=invitation.declined&targetId=${id}`);
  t.like(full, { actor: { userId: stranger.id }, details: { userId: stranger.id } });
  t.truthy(full!.ipAddress);
});

test('a team of an organization: membership.added, .updated with before/after, .removed and .left; a 403 escalation writes nothing', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    admin: { org: 'ADMIN', team: 'ADMIN' },
    member: { org: 'MEMBER' },
    leaver: { org: 'MEMBER', team: 'MEMBER' },
  });
  const path = `/v2/teams/${scene.teamId}/memberships`;
  const added = await call('POST', path, {
    token: scene.users.admin.apiKey,
    body: { userId: scene.users.member.id, role: 'MEMBER' },
  });
  t.is(added.status, 201, JSON.stringify(added.body));
  const membershipId = added.body.data.id as number;

  const escalation = await call('PATCH', `${path}/${membershipId}`, {
    token: scene.users.admin.apiKey,
    body: { role: 'OWNER' },
  });
  t.is(escalation.status, 403);
  const promoted = await call('PATCH', `${path}/${membershipId}`, {
    token: scene.users.admin.apiKey,
    body: { role: 'ADMIN' },
  });
  t.is(promoted.status, 200, JSON.stringify(promoted.body));
  const removed = await call('DELETE', `${path}/${membershipId}`, { token: scene.users.owner.apiKey });
  t.is(removed.status, 200, JSON.stringify(removed.body));

  const list = await ofMembership(membershipId);
  t.is(list.length, 3, 'added, updated once (the refused escalation wrote nothing), removed');
  const [removal, update, addition] = list;
  t.like(addition, {
    action: 'membership.added',
    actor: { userId: scene.users.admin.id },
    organizationId: scene.orgId,
    after: { userId: scene.users.member.id, teamId: scene.teamId, accepted: true, role: 'MEMBER' },
  });
  t.like(update, {
    action: 'membership.updated',
    actor: { userId: scene.users.admin.id },
    organizationId: scene.orgId,
  });
  t.deepEqual(update!.before, { role: 'MEMBER', customRoleId: null });
  t.deepEqual(update!.after, { role: 'ADMIN', customRoleId: null });
  t.like(removal, {
    action: 'membership.removed',
    actor: { userId: scene.users.owner.id },
    organizationId: scene.orgId,
    before: { userId: scene.users.member.id, role: 'ADMIN' },
    after: null,
  });

  const leaverOrg = scene.orgMembership.leaver!;
  const left = await call('DELETE', `/v2/organizations/${scene.orgId}/memberships/${leaverOrg}`, {
    token: scene.users.leaver.apiKey,
  });
  t.is(left.status, 200, JSON.stringify(left.body));
  const [leaving] = await ofMembership(leaverOrg);
  t.like(leaving, {
    action: 'membership.left',
    actor: { userId: scene.users.leaver.id },
    organizationId: scene.orgId,
    before: { userId: scene.users.leaver.id, organizationId: scene.orgId },
  });
  t.deepEqual(leaving!.details['teamMembershipsRemoved'], [
    { id: scene.teamMembership.leaver, teamId: scene.teamId },
  ]);
});

test('provisioning by a service administrator: membership.provisioned with the admin as actor', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' } });
  const user = await insertUser(knex());
  const made = await call('POST', `/v2/admin/organizations/${scene.orgId}/memberships`, {
    token: admin.apiKey,
    body: { userId: user.id, role: 'MEMBER' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const [event] = await ofMembership(made.body.data.id);
  t.like(event, {
    action: 'membership.provisioned',
    actor: { type: 'api_key', userId: admin.id },
    organizationId: scene.orgId,
    after: { userId: user.id, accepted: true, role: 'MEMBER' },
  });
  const again = await call('POST', `/v2/admin/organizations/${scene.orgId}/memberships`, {
    token: admin.apiKey,
    body: { userId: user.id, role: 'MEMBER' },
  });
  t.is(again.status, 409);
  t.is(
    (await events(`action=membership.provisioned&actor=${admin.id}&take=250`)).filter(
      (e) => e.organizationId === scene.orgId,
    ).length,
    1,
  );
});
