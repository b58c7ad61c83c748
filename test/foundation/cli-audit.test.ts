import { disableAccount } from '@sched/accounts/disable';
import { type AuditContext, type AuditEvent, listAuditEvents } from '@sched/db/queries/audit-log';
import { ensureServiceAdmin } from '@sched/db/queries/admin';
import { findUserByEmail, findUserDisabledAt } from '@sched/db/queries/users';
import { createLogger } from '@sched/kit/logger';
import { type CommandContext, commands } from '@sched/launcher/commands';
import { openRuntime } from '@sched/runtime/runtime';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';

// An audit event for every change, accounts included. Each operator-CLI command that changes
// something writes its event in the change's transaction, the actor being the operator CLI: a
// `system` actor (no user) whose details name the CLI and the command.

const world = setUpWorld(test);
const { system, knex, store } = world;

let context: CommandContext;
test.serial.before(async () => {
  const cookieKeys = system.config.cookieKeys ?? [];
  context = {
    signingKeys: { secrets: cookieKeys, alg: 'ES256' },
    versions: store(),
    runtime: await openRuntime(
      { ...system.config, cookieKeys },
      createLogger({ level: 'silent' }),
      system.stores,
    ),
  };
});

const run = (name: keyof typeof commands, input: unknown) => commands[name](knex(), input, context);

/** The newest event of `action` about the target. */
async function eventOf(action: string, targetId: string | number): Promise<AuditEvent> {
  const { events } = await listAuditEvents(knex(), { action, targetId: String(targetId) }, { take: 1 });
  if (!events[0]) throw new Error(`no ${action} event about ${targetId}`);
  return events[0];
}

function byTheCli(
  t: { deepEqual: (a: unknown, b: unknown, m?: string) => void },
  event: AuditEvent,
  command: string,
) {
  t.deepEqual(
    { ...event.actor, via: event.details.via, command: event.details.command },
    { kind: 'system', userId: null, apiKeyId: null, clientId: null, via: 'cli', command },
    `${event.action} names the operator CLI`,
  );
}

test.serial('create-admin: a new account and its key, then a promotion of an existing one', async (t) => {
  const email = 'cli-admin@example.com';
  const made = (await run('create-admin', { email, password: 'operator password 1' })) as { userId: number };
  const created = await eventOf('user.created', made.userId);
  byTheCli(t, created, 'create-admin');
  t.deepEqual(created.after, { emailVerified: true, hasPassword: true, serviceAdmin: true });
  const { events: keys } = await listAuditEvents(knex(), { action: 'api_key.created' }, { take: 10 });
  const key = keys.find((event) => (event.after as { userId: number }).userId === made.userId);
  if (!key) return t.fail('no api_key.created event for the new administrator');
  byTheCli(t, key, 'create-admin');

  const existing = await insertUser(knex());
  await run('create-admin', { email: existing.email, password: existing.password });
  const granted = await eventOf('user.admin_granted', existing.id);
  byTheCli(t, granted, 'create-admin');
  t.deepEqual(
    [granted.before, granted.after],
    [
      { serviceAdmin: false, hasPassword: true, emailVerified: true },
      { serviceAdmin: true, hasPassword: true, emailVerified: true },
    ],
  );
});

test.serial('migrate with ADMIN_EMAIL creates the administrator on record', async (t) => {
  const { adminUserId } = (await run('migrate', {
    admin: { email: 'cli-bootstrap@example.com', password: 'operator password 2' },
  })) as { adminUserId: number };
  byTheCli(t, await eventOf('user.created', adminUserId), 'migrate');
});

test.serial('reset-password, disable-user and enable-user', async (t) => {
  const user = await insertUser(knex());
  await run('reset-password', { email: user.email, appUrl: system.url });
  const reset = await eventOf('user.reset_link_created', user.id);
  byTheCli(t, reset, 'reset-password');
  t.false(JSON.stringify(reset).includes('token='), 'no link in the event');

  await run('disable-user', { email: user.email });
  const disabled = await eventOf('user.disabled', user.id);
  byTheCli(t, disabled, 'disable-user');
  t.deepEqual(
    [disabled.before, disabled.after, disabled.details.changed],
    [{ disabled: false }, { disabled: true }, true],
  );

  await run('enable-user', { email: user.email });
  const enabled = await eventOf('user.enabled', user.id);
  byTheCli(t, enabled, 'enable-user');
  t.deepEqual([enabled.before, enabled.after], [{ disabled: true }, { disabled: false }]);
});

test.serial('create-client --approve, approve-client and rotate-keys', async (t) => {
  const input = { name: 'CLI audited', redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['PROFILE_READ'] };
  const approvedAtOnce = (await run('create-client', { ...input, approve: true })) as { id: string };
  byTheCli(t, await eventOf('oauth_client.created', approvedAtOnce.id), 'create-client');
  byTheCli(t, await eventOf('oauth_client.approved', approvedAtOnce.id), 'create-client');

  const pending = (await run('create-client', input)) as { id: string };
  await run('approve-client', { id: pending.id });
  const approved = await eventOf('oauth_client.approved', pending.id);
  byTheCli(t, approved, 'approve-client');
  t.deepEqual(approved.after, { reviewStatus: 'APPROVED' });

  const rotation = (await run('rotate-keys', {})) as { kid: string; retired: string | null };
  const rotated = await eventOf('signing_key.rotated', rotation.kid);
  byTheCli(t, rotated, 'rotate-keys');
  t.deepEqual(rotated.before, { activeKid: rotation.retired });
});

// An event the database refuses (an actor kind outside its check) must undo the change with it.
const refused: AuditContext = {
  actor: { kind: 'nobody' as never, userId: null },
  requestId: null,
  ipAddress: null,
};

test.serial('the event is in the change: when it cannot be written, nothing changes', async (t) => {
  const user = await insertUser(knex());
  await t.throwsAsync(disableAccount({ stores: system.stores }, user.id, refused));
  t.is(await findUserDisabledAt(knex(), user.id), null, 'the account stays enabled');

  const email = 'never-made@example.com';
  await t.throwsAsync(ensureServiceAdmin(knex(), { email, password: 'operator password 3' }, refused));
  t.is(await findUserByEmail(knex(), email), null, 'no account without its event');
});
