import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type Database, openDatabase } from '@sched/db/connection';
import { verifyPassword } from '@sched/kit/passwords';
import test from 'ava';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { childEnv, runToEnd, tempDir } from '../support/process.ts';

// The operator CLI for accounts (README "Operator CLI"; a child process, like `npm run cli`):
// `reset-password --email E` prints a one-time reset URL (unknown address: non-zero with one line);
// `create-admin` on an existing address with another password is refused (it never exits 0 keeping
// a password other than the one given); accounts made by the CLI and the ADMIN_EMAIL bootstrap
// count as verified. Own database (Postgres with DATABASE_URL, else a data folder).

const CLI = 'services/launcher/src/cli.ts';
const APP_URL = 'http://sched.example.test';

let database: TestDatabase | undefined;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let env: NodeJS.ProcessEnv;

test.before(async () => {
  dataDir = await tempDir();
  if (process.env.DATABASE_URL) {
    database = await createTestDatabase({ backend: 'postgres', migrate: false });
    env = childEnv({ DATABASE_URL: database.url, DATA_DIR: dataDir.path, APP_URL });
  } else {
    env = childEnv({ DATA_DIR: dataDir.path, APP_URL });
  }
  const migrated = await runToEnd(CLI, ['migrate'], {
    ...env,
    ADMIN_EMAIL: 'boot@example.com',
    ADMIN_PASSWORD: 'boot password 123',
  });
  if (migrated.code !== 0) throw new Error(migrated.output);
});
test.after.always(async () => {
  await database?.drop();
  await dataDir?.remove();
});

const run = (args: string[]) => runToEnd(CLI, args, env);

async function inspect<T>(read: (db: Database) => Promise<T>): Promise<T> {
  if (database) return read(database.db);
  const db = await openDatabase({ pgliteDir: join(dataDir.path, 'pg') });
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

const userRow = (db: Database, email: string) =>
  db
    .knex('users')
    .whereRaw('lower(email) = lower(?)', [email])
    .first('id', 'password_hash', 'email_verified_at') as Promise<
    { id: number | string; password_hash: string; email_verified_at: Date | null } | undefined
  >;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

test.serial('the ADMIN_EMAIL bootstrap and create-admin make verified accounts', async (t) => {
  const created = await run(['create-admin', '--email', 'ops@example.com', '--password', 'ops password 1']);
  t.is(created.code, 0, created.output);
  const rows = await inspect(async (db) => [
    await userRow(db, 'boot@example.com'),
    await userRow(db, 'ops@example.com'),
  ]);
  t.truthy(rows[0]?.email_verified_at, 'bootstrap');
  t.truthy(rows[1]?.email_verified_at, 'create-admin');
});

test.serial(
  'create-admin: same password prints a fresh key for the same user; another password is refused',
  async (t) => {
    const args = ['create-admin', '--email', 'twice@example.com', '--password', 'the first password'];
    const first = await run(args);
    t.is(first.code, 0, first.output);
    const again = await run(args);
    t.is(again.code, 0, again.output);
    const [one, two] = [JSON.parse(first.output.trim()), JSON.parse(again.output.trim())];
    t.is(two.userId, one.userId);
    t.not(two.apiKey, one.apiKey);

    const other = await run([
      'create-admin',
      '--email',
      'TWICE@example.com',
      '--password',
      'another password',
    ]);
    t.not(other.code, 0);
    const lines = other.output.trim().split('\n');
    t.is(lines.length, 1, other.output);
    t.regex(lines[0]!, /exists with another password; run reset-password/);
    const { row, keys } = await inspect(async (db) => ({
      row: await userRow(db, 'twice@example.com'),
      keys: await db
        .knex('api_keys')
        .where({ user_id: one.userId })
        .count<{ count: string }[]>('id as count'),
    }));
    t.true(await verifyPassword('the first password', row!.password_hash), 'the password is unchanged');
    t.is(Number(keys[0]!.count), 2, 'no key for the refused call');
  },
);

test.serial(
  'reset-password prints a one-time URL on APP_URL; a new one voids the older; unknown address fails',
  async (t) => {
    const created = await run([
      'create-admin',
      '--email',
      'forgetful@example.com',
      '--password',
      'forgotten pw 1',
    ]);
    t.is(created.code, 0, created.output);
    const first = await run(['reset-password', '--email', 'Forgetful@Example.com']);
    t.is(first.code, 0, first.output);
    const url = first.output.trim();
    t.is(url.split('\n').length, 1);
    t.regex(url, /^http:\/\/sched\.example\.test\/auth\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(url).searchParams.get('token')!;

    const second = await run(['reset-password', '--email', 'forgetful@example.com']);
    t.is(second.code, 0, second.output);
    const newer = new URL(second.output.trim()).searchParams.get('token')!;
    t.not(newer, token);
    const { userId } = JSON.parse(created.output.trim());
    const stored = await inspect((db) =>
      db.knex('password_reset_tokens').where({ user_id: userId }).select('token_hash', 'expires_at'),
    );
    t.deepEqual(
      stored.map((r) => r.token_hash),
      [sha256(newer)],
      'only the newest link, as a hash',
    );
    const lifetime = new Date(stored[0]!.expires_at).getTime() - Date.now();
    t.true(lifetime > 28 * 60_000 && lifetime <= 30 * 60_000, String(lifetime));

    const unknown = await run(['reset-password', '--email', 'nobody@example.com']);
    t.not(unknown.code, 0);
    t.is(unknown.output.trim().split('\n').length, 1, unknown.output);
    t.regex(unknown.output, /no account with the e-mail nobody@example.com/);
    const missing = await run(['reset-password']);
    t.not(missing.code, 0);
    t.regex(missing.output, /--email/);
  },
);
