import { writeFile } from 'node:fs/promises';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import {
  childEnv,
  exitOf,
  freePort,
  refusal,
  runRefused,
  runScript,
  runToEnd,
  tempDir,
  waitForStatus,
} from '../support/process.ts';

// The embedded default as `npm start` runs it: a child process, its own data folder, no servers.
// Serial: one data folder, used by one server at a time. A start that must be refused runs through
// runRefused / refusal: one that starts a server instead is killed after a deadline and fails the
// test with what it printed, instead of serving until ava's timeout.

let dataDir: Awaited<ReturnType<typeof tempDir>>;
let port: number;
let env: NodeJS.ProcessEnv;

test.before(async () => {
  dataDir = await tempDir();
  port = await freePort();
  env = childEnv({ DATA_DIR: dataDir.path, PORT: String(port), HOST: '127.0.0.1' });
});
test.after.always(async () => {
  await dataDir?.remove();
});

const base = () => `http://127.0.0.1:${port}`;
let firstUserId: number;

// How fast it starts is measured by `npm run bench start` (goal: ready within 5 s on the first
// start); here the deadline only stops a hang, so a loaded CI machine does not fail the test.
const READY_DEADLINE_MS = 60_000;

test.serial(
  'first start: ready with no external service, prints its URLs; the CLI works through it',
  async (t) => {
    const server = runScript('services/launcher/src/start.ts', [], env);
    try {
      const started = Date.now();
      await waitForStatus(`${base()}/health/ready`, 200, READY_DEADLINE_MS, server);
      t.log(`first start ready after ${Date.now() - started} ms`);
      t.true(server.output().includes('/auth/oauth2/authorize'));
      t.true(server.output().includes('/v2/auth/oauth2/token'));

      const first = await runToEnd(
        'services/launcher/src/cli.ts',
        ['create-admin', '--email', 'Admin@Example.com', '--password', 'correct horse battery'],
        env,
      );
      t.is(first.code, 0, first.output);
      const created = JSON.parse(first.output.trim()) as { userId: number; apiKey: string };
      t.true(Number.isInteger(created.userId));
      t.regex(created.apiKey, /^svc_[A-Za-z0-9_-]{43,}$/);
      firstUserId = created.userId;

      const again = await runToEnd(
        'services/launcher/src/cli.ts',
        ['create-admin', '--email', 'admin@example.com', '--password', 'correct horse battery'],
        env,
      );
      const second = JSON.parse(again.output.trim()) as { userId: number; apiKey: string };
      t.is(second.userId, created.userId, 'idempotent on the email, case-insensitively');
      t.not(second.apiKey, created.apiKey, 'a fresh key each call');

      const bad = await runToEnd(
        'services/launcher/src/cli.ts',
        ['create-admin', '--email', 'not-an-email', '--password', 'correct horse battery'],
        env,
      );
      t.not(bad.code, 0);
      t.is(bad.output.trim().split('\n').length, 1, bad.output);
    } finally {
      server.process.kill('SIGTERM');
      await exitOf(server);
    }
  },
);

test.serial(
  'SIGTERM: an in-flight request finishes, new connections are refused, the process exits 0',
  async (t) => {
    const server = runScript('services/launcher/src/start.ts', [], env);
    await waitForStatus(`${base()}/health/ready`, 200, READY_DEADLINE_MS, server);

    // A request whose body is still arriving when the signal comes.
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = '{"name":"drain"}';
    socket.write(
      `POST /v2/unknown HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"na`,
    );
    let response = '';
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));

    server.process.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await fetch(`${base()}/health/alive`).then(
      () => false,
      () => true,
    );
    t.true(refused, 'no new connections while draining');

    socket.write(body.slice(4));
    await new Promise((resolve) => socket.once('close', resolve));
    t.regex(response, /^HTTP\/1\.1 404 /);
    t.true(response.includes('"status":"error"'));
    t.is(await exitOf(server), 0, server.output());
  },
);

test.serial(
  'restart keeps the data; with no server running the CLI opens the data folder itself',
  async (t) => {
    const direct = await runToEnd(
      'services/launcher/src/cli.ts',
      ['create-admin', '--email', 'admin@example.com', '--password', 'correct horse battery'],
      env,
    );
    t.is(direct.code, 0, direct.output);
    t.is((JSON.parse(direct.output.trim()) as { userId: number }).userId, firstUserId);

    const server = runScript('services/launcher/src/start.ts', [], env);
    try {
      await waitForStatus(`${base()}/health/ready`, 200, READY_DEADLINE_MS, server);
      const viaServer = await runToEnd(
        'services/launcher/src/cli.ts',
        ['create-admin', '--email', 'admin@example.com', '--password', 'correct horse battery'],
        env,
      );
      t.is((JSON.parse(viaServer.output.trim()) as { userId: number }).userId, firstUserId);

      const second = runScript(
        'services/launcher/src/start.ts',
        [],
        childEnv({ DATA_DIR: dataDir.path, PORT: String(await freePort()) }),
      );
      const refused = await refusal(second);
      t.not(refused.code, 0, 'a second server may not open the same data folder');
      t.true(refused.output.includes('in use by process'), refused.output);
    } finally {
      server.process.kill('SIGTERM');
      t.is(await exitOf(server), 0);
    }
  },
);

test('a bad DATABASE_URL stops start-up at once with a one-line reason', async (t) => {
  const result = await runRefused(
    'services/launcher/src/start.ts',
    [],
    childEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: String(await freePort()) }),
  );
  t.not(result.code, 0);
  const lines = result.output.trim().split('\n');
  t.is(lines.length, 1, result.output);
  t.regex(lines[0]!, /cannot reach the database at 127\.0\.0\.1:1/);
});

test('an invalid variable stops start-up naming it', async (t) => {
  const result = await runRefused('services/launcher/src/start.ts', [], childEnv({ PORT: 'eighty' }));
  t.not(result.code, 0);
  t.regex(result.output.trim(), /^ConfigError: Invalid configuration: PORT /);
});

test('standalone services refuse to start without DATABASE_URL and REDIS_URL', async (t) => {
  for (const entry of ['services/auth/src/main.ts', 'services/api/src/main.ts']) {
    const result = await runRefused(entry, [], childEnv({ PORT: String(await freePort()) }));
    t.not(result.code, 0);
    t.regex(result.output.trim(), /DATABASE_URL is required/);
  }
});

test('a data folder or port start-up cannot use stops it with one line naming DATA_DIR, PORT or HOST', async (t) => {
  const scratch = await tempDir();
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  try {
    const aFile = join(scratch.path, 'a-file');
    await writeFile(aFile, '');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ DATA_DIR: aFile }, /^ConfigError: Invalid configuration: DATA_DIR .*a-file cannot be used/],
      // Set, but to nothing: not the default ./.data (a new database beside the one meant).
      [{ DATA_DIR: '  ' }, /^ConfigError: Invalid configuration: DATA_DIR is empty or only spaces/],
      [{ DATA_DIR: '' }, /^ConfigError: Invalid configuration: DATA_DIR is empty or only spaces/],
      [
        { DATA_DIR: join(aFile, 'below') },
        /^ConfigError: Invalid configuration: DATA_DIR .*below cannot be used/,
      ],
      [
        { DATA_DIR: join(scratch.path, 'x'.repeat(110)) },
        /^ConfigError: Invalid configuration: DATA_DIR .* is too long/,
      ],
      [
        { DATA_DIR: join(scratch.path, 'd1'), PORT: String((busy.address() as AddressInfo).port) },
        /^ConfigError: Invalid configuration: PORT \d+ is in use/,
      ],
      // TEST-NET-1: an address no machine of ours has.
      [
        { DATA_DIR: join(scratch.path, 'd2'), HOST: '192.0.2.1' },
        /^ConfigError: Invalid configuration: HOST 192\.0\.2\.1 /,
      ],
    ];
    for (const [vars, expected] of cases) {
      const result = await runRefused(
        'services/launcher/src/start.ts',
        [],
        childEnv({ PORT: String(await freePort()), HOST: '127.0.0.1', ...vars }),
      );
      t.is(result.code, 1, result.output);
      t.is(result.output.trim().split('\n').length, 1, result.output);
      t.regex(result.output.trim(), expected);
    }
  } finally {
    busy.close();
    await scratch.remove();
  }
});
