import { composeSystem } from '@sched/launcher/compose';
import { createLogger } from '@sched/kit/logger';
import { verifyPassword } from '@sched/kit/passwords';
import { createUser } from '@sched/db/queries/users';
import test from 'ava';
import { issueTokens } from '../support/oauth.ts';
import { startTestSystem, type TestSystem } from '../support/system.ts';
import { insertClient } from '../support/factories.ts';

// For containers, `ADMIN_EMAIL` and `ADMIN_PASSWORD` at start-up create that service
// administrator if missing. Start-up is composeSystem (what `npm start` runs), here on the test
// system's own database (real Postgres / Redis when DATABASE_URL / REDIS_URL are set).

const ADMIN_EMAIL = 'Bootstrap.Admin@example.com';
const ADMIN_PASSWORD = 'bootstrap admin password';

let system: TestSystem;
test.before(async () => {
  system = await startTestSystem({ ADMIN_EMAIL, ADMIN_PASSWORD });
});
test.after.always(async () => {
  await system?.close();
});

const knex = () => system.stores.db.knex;

const adminRows = () =>
  knex()('users')
    .whereRaw('lower(email) = lower(?)', [ADMIN_EMAIL])
    .select('id', 'email', 'is_service_admin', 'password_hash') as Promise<
    Array<{ id: number; email: string; is_service_admin: boolean; password_hash: string }>
  >;

test.serial('start-up with ADMIN_EMAIL and ADMIN_PASSWORD creates that service administrator', async (t) => {
  const rows = await adminRows();
  t.is(rows.length, 1);
  t.is(rows[0]!.is_service_admin, true);
  t.true(await verifyPassword(ADMIN_PASSWORD, rows[0]!.password_hash));
});

test.serial(
  'the bootstrap administrator signs in on the authorization page with that password',
  async (t) => {
    const client = await insertClient(knex(), { scopes: ['PROFILE_READ'] });
    const tokens = await issueTokens(system.url, client, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const response = await fetch(`${system.url}/v2/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    t.is(response.status, 200);
    const body = (await response.json()) as { data: { id: number; email: string } };
    const [row] = await adminRows();
    t.is(body.data.id, row!.id);
    t.is(body.data.email.toLowerCase(), ADMIN_EMAIL.toLowerCase());
  },
);

test.serial('a second start-up with the variables is idempotent: same user, password kept', async (t) => {
  const [before] = await adminRows();
  // A restart on the same database; another ADMIN_PASSWORD (the administrator changed theirs since)
  // neither overwrites the existing one nor stops the start, and is no error.
  const lines: string[] = [];
  const logger = createLogger({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  for (const password of [ADMIN_PASSWORD, 'another password entirely']) {
    const config = { ...system.config, bootstrapAdmin: { email: ADMIN_EMAIL.toUpperCase(), password } };
    const service = await composeSystem(config, logger, { stores: system.stores });
    await service.onClose();
  }
  t.false(
    lines.some((line) => line.includes('not made')),
    lines.join(''),
  );
  const after = await adminRows();
  t.is(after.length, 1, 'no second user with that e-mail');
  t.is(after[0]!.id, before!.id);
  t.is(after[0]!.is_service_admin, true);
  t.is(after[0]!.password_hash, before!.password_hash);
});

test.serial(
  'ADMIN_EMAIL naming an account someone else registered: not made an administrator, the service starts',
  async (t) => {
    // A public sign-up with the address first: unverified, the registrant's own password.
    const squatted = 'taken.first@example.com';
    const squatter = await createUser(knex(), { email: squatted, password: 'the squatter password' });
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const config = { ...system.config, bootstrapAdmin: { email: squatted, password: ADMIN_PASSWORD } };
    const service = await composeSystem(config, logger, { stores: system.stores });
    await service.onClose();
    const row = await knex()('users')
      .where({ id: squatter.id })
      .first('is_service_admin', 'email_verified_at');
    t.false(row.is_service_admin);
    t.is(row.email_verified_at, null);
    t.true(
      lines.some(
        (line) =>
          line.includes('bootstrap service administrator not made') && line.includes('reset-password'),
      ),
      lines.join(''),
    );
  },
);

test.serial('without the variables no service administrator is made at start-up', async (t) => {
  const other = await startTestSystem();
  try {
    const admins = await other.stores.db.knex('users').where({ is_service_admin: true }).count({ n: '*' });
    t.is(Number(admins[0]!.n), 0);
  } finally {
    await other.close();
  }
});
