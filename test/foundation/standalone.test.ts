import test from 'ava';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { childEnv, exitOf, freePort, refusal, runScript, waitForStatus } from '../support/process.ts';

// Each deployable alone, as in production: real Postgres and Redis, its own port.
const withServers = process.env.DATABASE_URL && process.env.REDIS_URL ? test : test.skip;

let database: TestDatabase | undefined;
test.before(async () => {
  if (process.env.DATABASE_URL && process.env.REDIS_URL) database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

for (const entry of ['services/auth/src/main.ts', 'services/api/src/main.ts']) {
  withServers(
    `${entry} starts alone on Postgres and Redis, is ready, and stops cleanly on SIGTERM`,
    async (t) => {
      const port = await freePort();
      const service = runScript(
        entry,
        [],
        childEnv({
          DATABASE_URL: database!.url,
          REDIS_URL: process.env.REDIS_URL,
          COOKIE_KEYS: 'standalone-test-key-0123456789abcdefgh',
          ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
          PORT: String(port),
          HOST: '127.0.0.1',
        }),
      );
      try {
        await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000, service);
        const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
        t.is(metrics.status, 200);
      } finally {
        service.process.kill('SIGTERM');
      }
      t.is(await exitOf(service), 0, service.output());
    },
  );
}

withServers(
  'a standalone service refuses a database that lacks its migrations, saying to run migrate',
  async (t) => {
    // Ready with 500s behind it would be worse: the services leave migrating to the migrate step.
    const unmigrated = await createTestDatabase({ migrate: false });
    try {
      for (const entry of ['services/auth/src/main.ts', 'services/api/src/main.ts']) {
        const service = runScript(
          entry,
          [],
          childEnv({
            DATABASE_URL: unmigrated.url,
            REDIS_URL: process.env.REDIS_URL,
            COOKIE_KEYS: 'standalone-test-key-0123456789abcdefgh',
            ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
            PORT: String(await freePort()),
            HOST: '127.0.0.1',
          }),
        );
        t.is((await refusal(service)).code, 1, service.output());
        const lines = service.output().trim().split('\n');
        t.is(lines.length, 1, service.output());
        t.regex(
          lines[0]!,
          /^SchemaOutdatedError: the database \(DATABASE_URL\) lacks \d+ migration\(s\).*cli -- migrate/,
        );
      }
    } finally {
      await unmigrated.drop();
    }
  },
);
