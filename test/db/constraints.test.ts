import type { Knex } from '@sched/db/connection';
import { sha256Hex } from '@sched/kit/secrets';
import test, { type ExecutionContext } from 'ava';
import { createTestDatabase, databaseBackends, type TestDatabase } from '../support/database.ts';

// The schema refuses what the application must never store, on every backend.

const databases = new Map<string, TestDatabase>();

test.before(async () => {
  for (const backend of databaseBackends()) databases.set(backend, await createTestDatabase({ backend }));
});

test.after.always(async () => {
  for (const database of databases.values()) await database.drop();
});

let sequence = 0;
const unique = (prefix: string) => `${prefix}${++sequence}`;

async function insertId(knex: Knex, table: string, row: Record<string, unknown>): Promise<number> {
  const [inserted] = (await knex(table).insert(row).returning('id')) as Array<{ id: number }>;
  return Number(inserted!.id);
}

const newUser = (knex: Knex, email = `${unique('user')}@example.com`) => insertId(knex, 'users', { email });
const newOrganization = (knex: Knex) => {
  const slug = unique('org');
  return insertId(knex, 'organizations', { name: slug, slug });
};
const newTeam = (knex: Knex, organizationId: number | null = null) => {
  const slug = unique('team');
  return insertId(knex, 'teams', { name: slug, slug, organization_id: organizationId });
};
const newClient = async (knex: Knex, ownerUserId: number) => {
  const id = unique('client_');
  await knex('oauth_clients').insert({ id, owner_user_id: ownerUserId, name: id, scopes: ['BOOKING_READ'] });
  return id;
};

/** Asserts that `promise` fails on the named constraint (SQLSTATE 23xxx). */
async function refused(t: ExecutionContext, promise: Promise<unknown>, constraint: string) {
  const error = (await t.throwsAsync(promise)) as { code?: string; constraint?: string } | undefined;
  t.regex(String(error?.code), /^23/, 'an integrity violation');
  t.is(error?.constraint, constraint);
}

function eachBackend(title: string, body: (t: ExecutionContext, knex: Knex) => Promise<void>) {
  for (const backend of databaseBackends()) {
    test(`${backend}: ${title}`, async (t) => body(t, databases.get(backend)!.db.knex));
  }
}

eachBackend(
  'an e-mail differing only in case is refused; managed users have their own namespace',
  async (t, knex) => {
    const email = `${unique('Case')}@Example.com`;
    await newUser(knex, email);
    await refused(t, newUser(knex, email.toLowerCase()), 'users_email_lower_unique');
    await refused(t, newUser(knex, email.toUpperCase()), 'users_email_lower_unique');

    const owner = await newUser(knex);
    const clientA = await newClient(knex, owner);
    const clientB = await newClient(knex, owner);
    await insertId(knex, 'users', { email, managed_by_client_id: clientA });
    await insertId(knex, 'users', { email, managed_by_client_id: clientB });
    await refused(
      t,
      insertId(knex, 'users', { email: email.toUpperCase(), managed_by_client_id: clientA }),
      'users_managed_email_lower_unique',
    );
  },
);

eachBackend('usernames are unique ignoring case; many users have none', async (t, knex) => {
  const username = unique('Alice');
  await insertId(knex, 'users', { email: `${unique('u')}@example.com`, username });
  await refused(
    t,
    insertId(knex, 'users', { email: `${unique('u')}@example.com`, username: username.toLowerCase() }),
    'users_username_lower_unique',
  );
  await newUser(knex);
  await newUser(knex);
  t.pass();
});

eachBackend('user columns are checked: week start, time format, onboarding step', async (t, knex) => {
  await refused(
    t,
    insertId(knex, 'users', { email: `${unique('u')}@example.com`, week_start: 'monday' }),
    'users_week_start_check',
  );
  await refused(
    t,
    insertId(knex, 'users', { email: `${unique('u')}@example.com`, time_format: 13 }),
    'users_time_format_check',
  );
  await refused(
    t,
    insertId(knex, 'users', { email: `${unique('u')}@example.com`, onboarding_step: 'nope' }),
    'users_onboarding_step_check',
  );
  const id = await insertId(knex, 'users', { email: `${unique('u')}@example.com`, time_format: 24 });
  const row = await knex('users').where({ id }).first('time_zone', 'week_start', 'locale', 'metadata');
  t.deepEqual(row, { time_zone: 'UTC', week_start: 'Monday', locale: 'en', metadata: {} });
});

eachBackend('one membership per user and team, and per user and organization', async (t, knex) => {
  const user = await newUser(knex);
  const organization = await newOrganization(knex);
  const team = await newTeam(knex, organization);
  await insertId(knex, 'memberships', { user_id: user, team_id: team, role: 'OWNER', accepted: true });
  await refused(
    t,
    insertId(knex, 'memberships', { user_id: user, team_id: team, role: 'MEMBER' }),
    'memberships_user_team_unique',
  );
  await insertId(knex, 'memberships', { user_id: user, organization_id: organization, role: 'ADMIN' });
  await refused(
    t,
    insertId(knex, 'memberships', { user_id: user, organization_id: organization, role: 'MEMBER' }),
    'memberships_user_organization_unique',
  );
  // Another user in the same team is fine.
  await insertId(knex, 'memberships', { user_id: await newUser(knex), team_id: team, role: 'MEMBER' });
});

eachBackend('a membership belongs to exactly one team or organization', async (t, knex) => {
  const user = await newUser(knex);
  await refused(
    t,
    insertId(knex, 'memberships', { user_id: user, role: 'MEMBER' }),
    'memberships_team_xor_organization',
  );
  await refused(
    t,
    insertId(knex, 'memberships', {
      user_id: user,
      role: 'MEMBER',
      team_id: await newTeam(knex),
      organization_id: await newOrganization(knex),
    }),
    'memberships_team_xor_organization',
  );
});

eachBackend('membership role is OWNER, ADMIN or MEMBER (uppercase)', async (t, knex) => {
  const user = await newUser(knex);
  const team = await newTeam(knex);
  for (const role of ['owner', 'SUPERUSER', '']) {
    await refused(
      t,
      insertId(knex, 'memberships', { user_id: user, team_id: team, role }),
      'memberships_role_check',
    );
  }
  const id = await insertId(knex, 'memberships', { user_id: user, team_id: team });
  t.like(await knex('memberships').where({ id }).first(), {
    role: 'MEMBER',
    accepted: false,
    disable_impersonation: false,
    custom_role_id: null,
  });
});

eachBackend(
  'roles: system roles seeded; custom names unique per organization ignoring case',
  async (t, knex) => {
    const system = await knex('roles')
      .where({ type: 'SYSTEM' })
      .orderBy('id')
      .select('id', 'organization_id');
    t.deepEqual(system, [
      { id: 'admin_role', organization_id: null },
      { id: 'member_role', organization_id: null },
      { id: 'owner_role', organization_id: null },
    ]);
    t.deepEqual(await knex('role_permissions').where({ role_id: 'owner_role' }).pluck('permission'), ['*.*']);

    const organization = await newOrganization(knex);
    const other = await newOrganization(knex);
    const [role] = (await knex('roles')
      .insert({ organization_id: organization, name: 'Reviewers' })
      .returning(['id', 'type'])) as Array<{ id: string; type: string }>;
    t.regex(role!.id, /^role_[0-9a-f]{32}$/);
    t.is(role!.type, 'CUSTOM');
    await refused(
      t,
      knex('roles').insert({ organization_id: organization, name: 'REVIEWERS' }),
      'roles_org_name_lower_unique',
    );
    await knex('roles').insert({ organization_id: other, name: 'reviewers' });
    await refused(
      t,
      knex('roles').insert({ organization_id: organization, name: 'x', type: 'OTHER' }),
      'roles_type_check',
    );
    await refused(t, knex('roles').insert({ name: 'Orphan', type: 'CUSTOM' }), 'roles_owner_check');

    await knex('role_permissions').insert({ role_id: role!.id, permission: 'eventType.update' });
    await refused(
      t,
      knex('role_permissions').insert({ role_id: role!.id, permission: 'eventType.update' }),
      'role_permissions_pkey',
    );
    await refused(
      t,
      knex('role_permissions').insert({ role_id: role!.id, permission: 'no dots' }),
      'role_permissions_format',
    );

    // Deleting a custom role detaches it from memberships (they fall back to the role check).
    const membership = await insertId(knex, 'memberships', {
      user_id: await newUser(knex),
      organization_id: organization,
      role: 'MEMBER',
      custom_role_id: role!.id,
    });
    await knex('roles').where({ id: role!.id }).delete();
    t.is((await knex('memberships').where({ id: membership }).first('custom_role_id')).custom_role_id, null);
    t.is(
      await knex('role_permissions')
        .where({ role_id: role!.id })
        .count()
        .first()
        .then((r) => Number(r?.count)),
      0,
    );
  },
);

eachBackend('team slugs are unique within an organization, and among teams outside any', async (t, knex) => {
  const a = await newOrganization(knex);
  const b = await newOrganization(knex);
  await insertId(knex, 'teams', { name: 'Sales', slug: 'sales', organization_id: a });
  await insertId(knex, 'teams', { name: 'Sales', slug: 'sales', organization_id: b });
  await refused(
    t,
    insertId(knex, 'teams', { name: 'Sales', slug: 'SALES', organization_id: a }),
    'teams_org_slug_lower_unique',
  );
  const loose = unique('loose');
  await insertId(knex, 'teams', { name: loose, slug: loose });
  await refused(
    t,
    insertId(knex, 'teams', { name: loose, slug: loose.toUpperCase() }),
    'teams_slug_lower_unique',
  );
  const org = unique('acme');
  await insertId(knex, 'organizations', { name: org, slug: org });
  await refused(
    t,
    insertId(knex, 'organizations', { name: org, slug: org.toUpperCase() }),
    'organizations_slug_lower_unique',
  );
});

eachBackend('booking limits are >= 1 or null', async (t, knex) => {
  for (const column of ['per_day', 'per_week', 'per_month', 'per_year']) {
    const user = await newUser(knex);
    await refused(
      t,
      knex('booking_limits').insert({ user_id: user, [column]: 0 }),
      `booking_limits_${column}_check`,
    );
    await refused(
      t,
      knex('booking_limits').insert({ user_id: user, [column]: -1 }),
      `booking_limits_${column}_check`,
    );
    await knex('booking_limits').insert({ user_id: user, [column]: 1 });
  }
  const user = await newUser(knex);
  await knex('booking_limits').insert({ user_id: user });
  t.like(await knex('booking_limits').where({ user_id: user }).first(), {
    per_day: null,
    per_week: null,
    per_month: null,
    per_year: null,
  });
  await refused(t, knex('booking_limits').insert({ user_id: user }), 'booking_limits_pkey');
});

eachBackend(
  'event types: exactly one of owner and team; limits >= 1; slug unique per owner',
  async (t, knex) => {
    const user = await newUser(knex);
    const team = await newTeam(knex);
    const base = { title: 'Intro', length_minutes: 30 };
    await refused(t, insertId(knex, 'event_types', { ...base, slug: 'a' }), 'event_types_owner_xor_team');
    await refused(
      t,
      insertId(knex, 'event_types', { ...base, slug: 'b', owner_user_id: user, team_id: team }),
      'event_types_owner_xor_team',
    );
    await refused(
      t,
      insertId(knex, 'event_types', { ...base, slug: 'c', owner_user_id: user, limit_per_week: 0 }),
      'event_types_limit_per_week_check',
    );
    await refused(
      t,
      insertId(knex, 'event_types', { ...base, slug: 'd', owner_user_id: user, length_minutes: 0 }),
      'event_types_length_check',
    );
    await insertId(knex, 'event_types', { ...base, slug: 'intro', owner_user_id: user });
    await refused(
      t,
      insertId(knex, 'event_types', { ...base, slug: 'Intro', owner_user_id: user }),
      'event_types_owner_slug_unique',
    );
    const teamType = await insertId(knex, 'event_types', { ...base, slug: 'intro', team_id: team });
    await knex('event_type_hosts').insert({ event_type_id: teamType, user_id: user });
    await refused(
      t,
      knex('event_type_hosts').insert({ event_type_id: teamType, user_id: user }),
      'event_type_hosts_pkey',
    );
  },
);

eachBackend(
  'a default schedule must be one of the user own schedules; deleting it unsets it',
  async (t, knex) => {
    const alice = await newUser(knex);
    const bob = await newUser(knex);
    const bobs = await insertId(knex, 'schedules', { user_id: bob, name: 'Bob', time_zone: 'UTC' });
    await refused(
      t,
      knex('users').where({ id: alice }).update({ default_schedule_id: bobs }),
      'users_default_schedule_fk',
    );
    const alices = await insertId(knex, 'schedules', {
      user_id: alice,
      name: 'Alice',
      time_zone: 'Europe/Paris',
    });
    await knex('users').where({ id: alice }).update({ default_schedule_id: alices });
    await knex('schedules').where({ id: alices }).delete();
    t.is((await knex('users').where({ id: alice }).first('default_schedule_id')).default_schedule_id, null);

    await refused(
      t,
      insertId(knex, 'schedule_availability', {
        schedule_id: bobs,
        weekday: 1,
        start_time: '17:00',
        end_time: '09:00',
      }),
      'schedule_availability_interval_check',
    );
    await refused(
      t,
      insertId(knex, 'schedule_availability', {
        schedule_id: bobs,
        weekday: 0,
        start_time: '09:00',
        end_time: '17:00',
      }),
      'schedule_availability_weekday_check',
    );
    await insertId(knex, 'schedule_availability', {
      schedule_id: bobs,
      weekday: 7,
      start_time: '09:00',
      end_time: '24:00',
    });
  },
);

eachBackend('bookings: status, interval and uid are checked', async (t, knex) => {
  const host = await newUser(knex);
  const booking = (overrides: Record<string, unknown>) => ({
    uid: unique('bk_'),
    host_user_id: host,
    start_at: '2030-01-07T09:00:00Z',
    end_at: '2030-01-07T09:30:00Z',
    attendee_name: 'Ann',
    attendee_email: 'ann@example.com',
    attendee_time_zone: 'UTC',
    ...overrides,
  });
  await refused(t, insertId(knex, 'bookings', booking({ status: 'ACCEPTED' })), 'bookings_status_check');
  await refused(
    t,
    insertId(knex, 'bookings', booking({ end_at: '2030-01-07T09:00:00Z' })),
    'bookings_interval_check',
  );
  const first = booking({});
  await insertId(knex, 'bookings', first);
  await refused(t, insertId(knex, 'bookings', booking({ uid: first.uid })), 'bookings_uid_unique');
  await insertId(knex, 'bookings', booking({ rescheduled_from_uid: first.uid }));
  await refused(
    t,
    insertId(knex, 'bookings', booking({ rescheduled_from_uid: 'nope' })),
    'bookings_rescheduled_from_uid_foreign',
  );
});

eachBackend(
  'oauth clients: type, review status, at most 10 redirect URIs, hashed secrets',
  async (t, knex) => {
    const owner = await newUser(knex);
    const base = { owner_user_id: owner, name: 'App' };
    await refused(
      t,
      knex('oauth_clients').insert({ ...base, id: unique('c'), client_type: 'spa' }),
      'oauth_clients_client_type_check',
    );
    await refused(
      t,
      knex('oauth_clients').insert({ ...base, id: unique('c'), review_status: 'approved' }),
      'oauth_clients_review_status_check',
    );
    await refused(
      t,
      knex('oauth_clients').insert({ ...base, id: unique('c'), review_status: 'REJECTED' }),
      'oauth_clients_rejection_reason_check',
    );
    await refused(
      t,
      knex('oauth_clients').insert({ ...base, id: 'not url safe!' }),
      'oauth_clients_id_format',
    );
    const uris = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
    await refused(
      t,
      knex('oauth_clients').insert({ ...base, id: unique('c'), redirect_uris: uris }),
      'oauth_clients_redirect_uris_max',
    );
    const id = unique('c');
    await knex('oauth_clients').insert({ ...base, id, redirect_uris: uris.slice(0, 10) });
    const row = await knex('oauth_clients').where({ id }).first();
    t.like(row, { client_type: 'confidential', review_status: 'PENDING', is_legacy: false, scopes: [] });
    t.is(row.redirect_uris.length, 10);

    await refused(
      t,
      knex('oauth_client_secrets').insert({ client_id: id, secret_hash: 'plain', hint: 'ain' }),
      'oauth_client_secrets_hash_sha256',
    );
    await knex('oauth_client_secrets').insert({ client_id: id, secret_hash: sha256Hex('s1'), hint: 's1' });
    await knex('oauth_consents').insert({ user_id: owner, client_id: id, scopes: ['BOOKING_READ'] });
    await refused(t, knex('oauth_consents').insert({ user_id: owner, client_id: id }), 'oauth_consents_pkey');

    // Deleting a client removes its secrets, consents and managed users.
    const managed = await insertId(knex, 'users', { email: 'managed@example.com', managed_by_client_id: id });
    await knex('oauth_clients').where({ id }).delete();
    t.is(await knex('oauth_client_secrets').where({ client_id: id }).first(), undefined);
    t.is(await knex('oauth_consents').where({ client_id: id }).first(), undefined);
    t.is(await knex('users').where({ id: managed }).first(), undefined);
  },
);

eachBackend('deleting a user removes what is theirs and keeps the audit trail', async (t, knex) => {
  const user = await newUser(knex);
  const schedule = await insertId(knex, 'schedules', { user_id: user, name: 'Main', time_zone: 'UTC' });
  await knex('users').where({ id: user }).update({ default_schedule_id: schedule });
  await knex('api_keys').insert({ user_id: user, key_hash: sha256Hex(unique('key')), hint: 'abcd' });
  await insertId(knex, 'memberships', { user_id: user, team_id: await newTeam(knex), role: 'OWNER' });
  await knex('booking_limits').insert({ user_id: user, per_day: 2 });
  const audit = await insertId(knex, 'audit_log', {
    actor_user_id: user,
    action: 'user.update',
    subject_type: 'user',
    subject_id: String(user),
  });
  await knex('users').where({ id: user }).delete();
  for (const [table, column] of [
    ['schedules', 'user_id'],
    ['api_keys', 'user_id'],
    ['memberships', 'user_id'],
    ['booking_limits', 'user_id'],
  ] as const) {
    t.is(
      await knex(table)
        .where({ [column]: user })
        .first(),
      undefined,
      table,
    );
  }
  // The audit log is append-only (0015): the actor's id stays, no foreign key rewrites it.
  t.like(await knex('audit_log').where({ id: audit }).first(), { actor_user_id: user, details: {} });
});

eachBackend('api keys and verification tokens store SHA-256 hex only', async (t, knex) => {
  const user = await newUser(knex);
  await refused(
    t,
    knex('api_keys').insert({ user_id: user, key_hash: 'svc_plain', hint: 'lain' }),
    'api_keys_key_hash_sha256',
  );
  const hash = sha256Hex(unique('key'));
  await knex('api_keys').insert({ user_id: user, key_hash: hash, hint: 'abcd' });
  await refused(
    t,
    knex('api_keys').insert({ user_id: user, key_hash: hash, hint: 'abcd' }),
    'api_keys_key_hash_unique',
  );
  await refused(
    t,
    knex('email_verification_tokens').insert({
      user_id: user,
      email: 'x@example.com',
      token_hash: 'x',
      expires_at: new Date(),
    }),
    'email_verification_tokens_hash_sha256',
  );
});

eachBackend('hot-path indexes exist', async (t, knex) => {
  const { rows } = (await knex.raw(
    "select indexname, indexdef from pg_indexes where schemaname = 'public'",
  )) as { rows: Array<{ indexname: string; indexdef: string }> };
  const byName = new Map(rows.map((row) => [row.indexname, row.indexdef]));
  t.regex(
    byName.get('bookings_host_accepted_start') ?? '',
    /\(host_user_id, start_at\) WHERE \(status = 'accepted'::text\)/,
  );
  t.regex(byName.get('api_keys_key_hash_unique') ?? '', /UNIQUE INDEX .*\(key_hash\)/);
  t.regex(byName.get('memberships_user_team_unique') ?? '', /\(user_id, team_id\)/);
  t.regex(byName.get('memberships_team_id') ?? '', /\(team_id\)/);
  t.regex(byName.get('oauth_client_secrets_active') ?? '', /\(client_id\) WHERE \(revoked_at IS NULL\)/);
  t.regex(byName.get('users_email_lower_unique') ?? '', /lower\(email\)/);
});
