import test from 'ava';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import {
  childEnv,
  exitOf,
  freePort,
  runScript,
  runToEnd,
  tempDir,
  waitForStatus,
} from '../support/process.ts';

// `npm run cli -- rotate-keys` as an operator runs it, beside a running server (a child process:
// embedded, reached through its control socket; or on Postgres with DATABASE_URL, where the CLI
// writes the database and tells the server through the token store). The server publishes the new
// key at once, first, with the old one still listed.

const CLI = 'services/launcher/src/cli.ts';
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let database: TestDatabase | undefined;
let port: number;
let env: NodeJS.ProcessEnv;

test.before(async () => {
  dataDir = await tempDir();
  port = await freePort();
  const common = { DATA_DIR: dataDir.path, PORT: String(port), HOST: '127.0.0.1' };
  if (process.env.DATABASE_URL && process.env.REDIS_URL) {
    database = await createTestDatabase({ backend: 'postgres', migrate: false });
    env = childEnv({
      ...common,
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL,
      COOKIE_KEYS: 'smoke-cookie-key-0123456789abcdefghijklmnop',
      ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
    });
  } else {
    env = childEnv(common);
  }
});
test.after.always(async () => {
  await database?.drop();
  await dataDir?.remove();
});

const kids = async () =>
  (
    (await (await fetch(`http://127.0.0.1:${port}/v2/auth/oauth2/jwks`)).json()) as {
      keys: Array<{ kid: string }>;
    }
  ).keys.map((key) => key.kid);

test.serial(
  'rotate-keys while the server runs: the new key is active at once, the old one still published',
  async (t) => {
    const server = runScript('services/launcher/src/start.ts', [], env);
    try {
      await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000, server);
      const before = await kids();
      t.is(before.length, 1, 'a key was made on the first start');

      const rotated = await runToEnd(CLI, ['rotate-keys'], env);
      t.is(rotated.code, 0, rotated.output);
      const result = JSON.parse(rotated.output.trim()) as { kid: string; retired: string };
      t.is(result.retired, before[0]!);
      t.deepEqual(await kids(), [result.kid, before[0]!]);

      const wrong = await runToEnd(CLI, ['rotate-keys', '--email', 'x@example.com'], env);
      t.not(wrong.code, 0);
    } finally {
      server.process.kill('SIGTERM');
      await exitOf(server);
    }
  },
);

test.serial('rotate-keys with no server running, then a restart publishes the keys it made', async (t) => {
  const rotated = await runToEnd(CLI, ['rotate-keys'], env);
  t.is(rotated.code, 0, rotated.output);
  const result = JSON.parse(rotated.output.trim()) as { kid: string; retired: string };
  const server = runScript('services/launcher/src/start.ts', [], env);
  try {
    await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000, server);
    const published = await kids();
    t.is(published[0], result.kid);
    t.true(published.includes(result.retired));
  } finally {
    server.process.kill('SIGTERM');
    await exitOf(server);
  }
});

test.serial(
  '`npm start` on Postgres without COOKIE_KEYS: rotate-keys uses the cookie keys the server keeps in DATA_DIR',
  async (t) => {
    if (!database) {
      t.pass('needs DATABASE_URL and REDIS_URL (embedded mode is the tests above)');
      return;
    }
    // Its own database: the signing keys above are encrypted under the test's COOKIE_KEYS.
    const own = await createTestDatabase({ backend: 'postgres', migrate: false });
    const folder = await tempDir();
    const serverEnv = childEnv({
      ...env,
      DATABASE_URL: own.url,
      DATA_DIR: folder.path,
      COOKIE_KEYS: undefined,
    });
    try {
      const first = runScript('services/launcher/src/start.ts', [], serverEnv);
      let before: string[];
      try {
        await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000, first);
        before = await kids();
        const rotated = await runToEnd(CLI, ['rotate-keys'], serverEnv);
        t.is(rotated.code, 0, rotated.output);
      } finally {
        first.process.kill('SIGTERM');
        await exitOf(first);
      }
      // A restart reads every key from the database: the new one must be readable with its keys.
      const again = runScript('services/launcher/src/start.ts', [], serverEnv);
      try {
        await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000, again);
        const after = await kids();
        t.is(after.length, 2, again.output());
        t.is(after[1], before[0]);
      } finally {
        again.process.kill('SIGTERM');
        await exitOf(again);
      }
    } finally {
      await own.drop();
      await folder.remove();
    }
  },
);
