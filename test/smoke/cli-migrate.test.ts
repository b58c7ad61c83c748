import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type Database, openDatabase } from '@sched/db/connection';
import { verifyPassword } from '@sched/kit/passwords';
import { createUser } from '@sched/db/queries/users';
import { templateReady } from '@sched/db/pglite-template';
import { migrations } from '@sched/migrations';
import test from 'ava';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { childEnv, runToEnd, tempDir } from '../support/process.ts';

// The operator CLI (README "Operator CLI") as `npm run cli` runs it (a child process): `migrate`
// applies pending migrations (and, with ADMIN_EMAIL / ADMIN_PASSWORD, makes that service
// administrator), and `create-admin --name` stores the name. Against this file's own, unmigrated
// Postgres database when DATABASE_URL is set; otherwise on an embedded data folder that no server
// holds (seeded from the build's template when there is one). Serial: one database, the CLI runs
// one after another.

const CLI = 'services/launcher/src/cli.ts';
const ALL_MIGRATIONS = migrations.map(([name]) => name);

let database: TestDatabase | undefined;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let env: NodeJS.ProcessEnv;

test.before(async () => {
  dataDir = await tempDir();
  if (process.env.DATABASE_URL) {
    database = await createTestDatabase({ backend: 'postgres', migrate: false });
    env = childEnv({ DATABASE_URL: database.url, DATA_DIR: dataDir.path });
  } else {
    env = childEnv({ DATA_DIR: dataDir.path });
  }
});
test.after.always(async () => {
  await database?.drop();
  await dataDir?.remove();
});

/** Runs the CLI and parses its one line of JSON output (fails the test on a non-zero exit). */
async function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const result = await runToEnd(CLI, args, { ...env, ...extraEnv });
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}:\n${result.output}`);
  const lines = result.output.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one line of output:\n${result.output}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** Reads the database the CLI wrote: this file's Postgres database, or the data folder's PGlite. */
async function inspect<T>(read: (db: Database) => Promise<T>): Promise<T> {
  if (database) return read(database.db);
  const db = await openDatabase({ pgliteDir: join(dataDir.path, 'pg') });
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

const userByEmail = (db: Database, email: string) =>
  db
    .knex('users')
    .whereRaw('lower(email) = lower(?)', [email])
    .select('id', 'name', 'is_service_admin', 'password_hash') as Promise<
    Array<{ id: number; name: string | null; is_service_admin: boolean; password_hash: string }>
  >;

test.serial('on Postgres, a command before migrate says to run migrate (one line)', async (t) => {
  if (!database) {
    t.pass('embedded: the CLI migrates the data folder itself');
    return;
  }
  const early = await runToEnd(
    CLI,
    ['create-admin', '--email', 'early@example.com', '--password', 'early pw 123'],
    env,
  );
  t.is(early.code, 1, early.output);
  t.is(early.output.trim().split('\n').length, 1, early.output);
  t.regex(early.output, /lacks \d+ migration\(s\) of this version, from 0001_identity: run migrate first/);
});

test.serial(
  'migrate applies every pending migration, then none; ADMIN_ variables make that admin',
  async (t) => {
    const bootstrap = { ADMIN_EMAIL: 'ops@example.com', ADMIN_PASSWORD: 'ops password 123' };
    const first = await cli(['migrate'], bootstrap);
    // An empty embedded data folder starts as a copy of the build's migrated template
    // (shared/db/src/pglite-template.ts): then nothing is left to apply.
    const seeded = database === undefined && (await templateReady());
    t.deepEqual(first.applied, seeded ? [] : ALL_MIGRATIONS);
    t.true(Number.isInteger(first.adminUserId));

    const again = await cli(['migrate'], bootstrap);
    t.deepEqual(
      again,
      { applied: [], adminUserId: first.adminUserId },
      'nothing pending; same administrator',
    );

    const { applied, rows } = await inspect(async (db) => ({
      applied: (await db.knex('knex_migrations').orderBy('id').pluck('name')) as string[],
      rows: await userByEmail(db, 'ops@example.com'),
    }));
    t.deepEqual(applied, ALL_MIGRATIONS, 'recorded as applied in the database');
    t.is(rows.length, 1);
    t.is(rows[0]!.id, first.adminUserId as number);
    t.is(rows[0]!.is_service_admin, true);
    t.true(await verifyPassword('ops password 123', rows[0]!.password_hash));
  },
);

test.serial(
  'migrate with ADMIN_ variables succeeds after the administrator changed their password, and when someone else holds the address',
  async (t) => {
    // The deployment's settings keep the first password; the administrator has changed theirs since.
    const changed = await cli(['migrate'], {
      ADMIN_EMAIL: 'OPS@example.com',
      ADMIN_PASSWORD: 'first password 1',
    });
    const [ops] = await inspect((db) => userByEmail(db, 'ops@example.com'));
    t.deepEqual(
      changed,
      { applied: [], adminUserId: ops!.id },
      'exit 0: the services waiting on migrate start',
    );
    t.true(await verifyPassword('ops password 123', ops!.password_hash), 'their own password kept');

    // An account someone registered with the address first, with a password of their own.
    await inspect((db) => createUser(db.knex, { email: 'squat@example.com', password: 'the squatter pw' }));
    const taken = await runToEnd(CLI, ['migrate'], {
      ...env,
      ADMIN_EMAIL: 'squat@example.com',
      ADMIN_PASSWORD: 'ops password 123',
    });
    t.is(taken.code, 0, taken.output);
    const lines = taken.output.trim().split('\n');
    t.is(lines.length, 2, taken.output);
    t.regex(taken.output, /^warning: service administrator not made: ADMIN_EMAIL: .*reset-password/m);
    t.true(
      lines.some((line) => line.startsWith('{"applied":[]')),
      taken.output,
    );
    const [squatter] = await inspect((db) => userByEmail(db, 'squat@example.com'));
    t.false(squatter!.is_service_admin, 'not promoted');
    t.true(await verifyPassword('the squatter pw', squatter!.password_hash));
  },
);

test.serial(
  'create-admin --name stores the name; idempotent on the email; the key kept as a hash',
  async (t) => {
    const args = ['create-admin', '--email', 'Named.Admin@example.com', '--password', 'named admin pw'];
    const created = await cli([...args, '--name', 'Ada Lovelace']);
    t.true(Number.isInteger(created.userId));
    t.regex(created.apiKey as string, /^svc_[A-Za-z0-9_-]{43,}$/);

    const again = await cli([...args, '--name', 'Someone Else']);
    t.is(again.userId, created.userId);
    t.not(again.apiKey, created.apiKey);

    const { rows, hashes } = await inspect(async (db) => ({
      rows: await userByEmail(db, 'named.admin@example.com'),
      hashes: (await db
        .knex('api_keys')
        .where({ user_id: created.userId as number })
        .orderBy('id')
        .pluck('key_hash')) as string[],
    }));
    t.is(rows.length, 1);
    t.is(rows[0]!.name, 'Ada Lovelace', 'the name given at creation is stored (and kept)');
    t.is(rows[0]!.is_service_admin, true);
    t.true(await verifyPassword('named admin pw', rows[0]!.password_hash));
    const sha256 = (key: unknown) =>
      createHash('sha256')
        .update(key as string)
        .digest('hex');
    t.deepEqual(hashes, [sha256(created.apiKey), sha256(again.apiKey)]);
  },
);
