import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import * as client from 'openid-client';
import { commands } from '@sched/launcher/commands';
import { authorizeInBrowser } from '../support/oauth.ts';
import {
  type Child,
  childEnv,
  exitOf,
  freePort,
  ROOT,
  runScript,
  runToEnd,
  tempDir,
  waitForStatus,
} from '../support/process.ts';

// The operator CLI (README "Operator CLI") as `npm run cli` runs it (child processes), in embedded
// mode beside a running server (through its control socket): --help for every command, the command
// list, --version; create-client --approve whose printed credentials run an authorization code flow
// with openid-client; list-clients, approve-client; disable-user / enable-user; backup while the
// server runs, restore into a fresh data folder (refused while a server holds the folder, and into
// one with a database unless --force), and the restored server has the data.

const CLI = 'services/launcher/src/cli.ts';
// Every command the CLI runs (restore is the CLI's own, never through the server), so a command
// added without its --help fails here.
const COMMANDS = [...Object.keys(commands), 'restore'];
const ADMIN = { email: 'operator@example.com', password: 'operator password 1' };

let dataDir: Awaited<ReturnType<typeof tempDir>>;
let restoredDir: Awaited<ReturnType<typeof tempDir>>;
let port: number;
let env: NodeJS.ProcessEnv;
let server: Child | undefined;
const base = () => `http://127.0.0.1:${port}`;

test.before(async () => {
  dataDir = await tempDir();
  restoredDir = await tempDir();
  port = await freePort();
  env = childEnv({
    DATA_DIR: dataDir.path,
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_URL: `http://127.0.0.1:${port}`,
  });
});
test.after.always(async () => {
  server?.process.kill('SIGTERM');
  if (server) await exitOf(server);
  await dataDir?.remove();
  await restoredDir?.remove();
});

const cli = (args: string[], extra: Record<string, string> = {}) => runToEnd(CLI, args, { ...env, ...extra });

/** The last line of JSON the command printed. */
function json<T = Record<string, unknown>>(output: string): T {
  const line = output
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{') || l.startsWith('['));
  if (!line) throw new Error(`no JSON in:\n${output}`);
  return JSON.parse(line) as T;
}

async function startServer(folder: string): Promise<Child> {
  const child = runScript('services/launcher/src/start.ts', [], { ...env, DATA_DIR: folder });
  await waitForStatus(`${base()}/health/ready`, 200, 60_000, child);
  return child;
}

async function stopServer(): Promise<void> {
  server?.process.kill('SIGTERM');
  if (server) await exitOf(server);
  server = undefined;
}

test.serial('the command list, --help and -h for every command, --version, unknown commands', async (t) => {
  const plain = await cli([]);
  t.is(plain.code, 0, plain.output);
  for (const name of COMMANDS) t.regex(plain.output, new RegExp(`^  ${name}\\b`, 'm'), name);
  t.regex(plain.output, /--version/);

  const helps = await Promise.all(COMMANDS.flatMap((name) => [cli([name, '--help']), cli([name, '-h'])]));
  COMMANDS.forEach((name, i) => {
    for (const help of [helps[2 * i]!, helps[2 * i + 1]!]) {
      t.is(help.code, 0, `${name}: ${help.output}`);
      t.true(help.output.startsWith(`usage: npm run cli -- ${name}`), `${name}: ${help.output}`);
    }
  });
  t.regex(
    helps[COMMANDS.indexOf('create-client') * 2]!.output,
    /--redirect-uri.*--scope.*--public.*--approve/,
  );

  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const printed = await cli(['--version']);
  t.is(printed.code, 0);
  t.is(printed.output.trim(), version);

  const unknown = await cli(['no-such-command']);
  t.not(unknown.code, 0);
  t.regex(unknown.output, /unknown command 'no-such-command'/);
  t.regex(unknown.output, /create-client/, 'the command list');
  t.is(unknown.output.trim().split('\n').length, 1, unknown.output);

  const unknownOption = await cli(['--nope']);
  t.is(unknownOption.code, 1);
  t.regex(
    unknownOption.output.trim(),
    /^CommandInputError: unknown option '--nope'; the commands: migrate, /,
  );
  t.is(unknownOption.output.trim().split('\n').length, 1, unknownOption.output);

  const badFlag = await cli(['list-clients', '--nope']);
  t.not(badFlag.code, 0);
  t.is(badFlag.output.trim().split('\n').length, 1, badFlag.output);
});

test.serial(
  'beside a running server: create-admin, create-client --approve and a code flow with openid-client',
  async (t) => {
    server = await startServer(dataDir.path);
    const alive = (await (await fetch(`${base()}/health/alive`)).json()) as {
      status: string;
      version: string;
    };
    t.is(alive.status, 'ok');
    t.is(
      alive.version,
      (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );

    const migrated = await cli(['migrate']);
    t.is(migrated.code, 0, migrated.output);
    t.deepEqual(json(migrated.output), { applied: [] });
    const admin = await cli(['create-admin', '--email', ADMIN.email, '--password', ADMIN.password]);
    t.is(admin.code, 0, admin.output);

    const noScope = await cli(['create-client', '--name', 'X', '--redirect-uri', 'http://127.0.0.1:9/cb']);
    t.not(noScope.code, 0);
    t.regex(noScope.output, /--scope/);

    const redirectUri = 'http://127.0.0.1:9/callback';
    const created = await cli([
      'create-client',
      '--name',
      'CLI app',
      '--redirect-uri',
      redirectUri,
      '--scope',
      'PROFILE_READ',
      '--scope',
      'BOOKING_READ',
      '--approve',
    ]);
    t.is(created.code, 0, created.output);
    const app = json<{ id: string; secret: string; reviewStatus: string; clientType: string }>(
      created.output,
    );
    t.is(app.reviewStatus, 'APPROVED');
    t.is(app.clientType, 'confidential');
    t.truthy(app.secret);

    const config = await client.discovery(
      new URL(base()),
      app.id,
      undefined,
      client.ClientSecretPost(app.secret),
      {
        algorithm: 'oauth2',
        execute: [client.allowInsecureRequests],
      },
    );
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'PROFILE_READ BOOKING_READ',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const { outcome } = await authorizeInBrowser(base(), url, { user: ADMIN });
    if (outcome.kind !== 'redirect') return t.fail(`flow stopped at a page: ${outcome.html}`);
    const tokens = await client.authorizationCodeGrant(config, outcome.url, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    t.is(tokens.scope, 'PROFILE_READ BOOKING_READ');
    const me = await fetch(`${base()}/v2/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    t.is(me.status, 200);

    const pub = await cli([
      'create-client',
      '--name',
      'Public app',
      '--redirect-uri',
      redirectUri,
      '--scope',
      'EVENT_TYPE_READ',
      '--public',
    ]);
    t.is(pub.code, 0, pub.output);
    const pending = json<{ id: string; secret?: string; reviewStatus: string; clientType: string }>(
      pub.output,
    );
    t.is(pending.reviewStatus, 'PENDING');
    t.is(pending.clientType, 'public');
    t.false('secret' in pending);
  },
);

test.serial(
  'list-clients, approve-client, reset-password, rotate-keys, mail-failures beside the server',
  async (t) => {
    const lines = (output: string) =>
      output
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { id: string; name: string; reviewStatus: string });
    const all = await cli(['list-clients']);
    t.is(all.code, 0, all.output);
    t.deepEqual(
      lines(all.output).map((c) => [c.name, c.reviewStatus]),
      [
        ['CLI app', 'APPROVED'],
        ['Public app', 'PENDING'],
      ],
    );
    const pendingOnly = lines((await cli(['list-clients', '--status', 'PENDING'])).output);
    t.deepEqual(
      pendingOnly.map((c) => c.name),
      ['Public app'],
    );
    const table = await cli(['list-clients', '--table']);
    t.regex(table.output, /^id\s+name\s+clientType\s+reviewStatus/m);
    t.not((await cli(['list-clients', '--status', 'MAYBE'])).code, 0);

    const approved = await cli(['approve-client', '--id', pendingOnly[0]!.id]);
    t.is(approved.code, 0, approved.output);
    t.deepEqual(json(approved.output), { id: pendingOnly[0]!.id, reviewStatus: 'APPROVED' });
    const again = await cli(['approve-client', '--id', pendingOnly[0]!.id]);
    t.not(again.code, 0);
    t.regex(again.output, /pending/);
    t.is(lines((await cli(['list-clients', '--status', 'PENDING'])).output).length, 0);
    t.not((await cli(['approve-client', '--id', 'no-such-client'])).code, 0);

    const reset = await cli(['reset-password', '--email', ADMIN.email]);
    t.is(reset.code, 0, reset.output);
    t.regex(reset.output, /\/auth\/reset-password\?token=/);
    t.is((await cli(['rotate-keys'])).code, 0);
    const failures = await cli(['mail-failures']);
    t.is(failures.code, 0, failures.output);
    t.deepEqual(json(failures.output), []);
  },
);

test.serial('disable-user and enable-user beside the server', async (t) => {
  const made = await cli(['create-admin', '--email', ADMIN.email, '--password', ADMIN.password]);
  const { apiKey } = json<{ apiKey: string }>(made.output);
  const me = () => fetch(`${base()}/v2/me`, { headers: { authorization: `Bearer ${apiKey}` } });
  t.is((await me()).status, 200);
  const disabled = await cli(['disable-user', '--email', ADMIN.email]);
  t.is(disabled.code, 0, disabled.output);
  t.true(json<{ changed: boolean }>(disabled.output).changed);
  t.is((await me()).status, 401, 'its API key stops at once');
  // A key for the disabled account would print as a success and answer 401 everywhere.
  const refused = await cli(['create-admin', '--email', ADMIN.email, '--password', ADMIN.password]);
  t.not(refused.code, 0, refused.output);
  t.is(refused.output.trim().split('\n').length, 1, refused.output);
  t.regex(refused.output, /is disabled; run enable-user --email operator@example.com/);
  const migrated = await cli(['migrate'], { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  t.is(migrated.code, 0, migrated.output);
  t.regex(migrated.output, /^warning: service administrator not made: ADMIN_EMAIL: .* is disabled/m);
  const enabled = await cli(['enable-user', '--email', ADMIN.email]);
  t.is(enabled.code, 0, enabled.output);
  t.is((await me()).status, 401, 'what was ended stays ended');
  const again = await cli(['create-admin', '--email', ADMIN.email, '--password', ADMIN.password]);
  t.is(again.code, 0, again.output);
  t.not((await cli(['disable-user', '--email', 'nobody@example.com'])).code, 0);
});

test.serial("reset-password beside the server links to the server's APP_URL, not the CLI's", async (t) => {
  // The operator's shell lacks the server's PORT and APP_URL: the CLI's default is another origin.
  const reset = await cli(['reset-password', '--email', ADMIN.email], { APP_URL: '', PORT: '' });
  t.is(reset.code, 0, reset.output);
  t.true(reset.output.trim().startsWith(`${base()}/auth/`), reset.output);
});

test.serial(
  'backup while the server runs; restore into a fresh folder; the restored server has the data',
  async (t) => {
    const fresh = json<{ apiKey: string }>(
      (await cli(['create-admin', '--email', ADMIN.email, '--password', ADMIN.password])).output,
    ).apiKey;
    const file = join(restoredDir.path, 'backup.sched');
    const backup = await cli(['backup', '--to', file]);
    t.is(backup.code, 0, backup.output);
    t.is(json<{ file: string }>(backup.output).file, file);
    t.is((await stat(file)).mode & 0o777, 0o600);

    const busy = await cli(['restore', '--from', file, '--force']);
    t.not(busy.code, 0, 'refused while a server holds the data folder');
    t.regex(busy.output, /holds/);

    await stopServer();
    const target = join(restoredDir.path, 'data');
    const restored = await cli(['restore', '--from', file], { DATA_DIR: target });
    t.is(restored.code, 0, restored.output);
    const twice = await cli(['restore', '--from', file], { DATA_DIR: target });
    t.not(twice.code, 0, 'a folder with a database needs --force');
    t.regex(twice.output, /--force/);
    t.is((await cli(['restore', '--from', file, '--force'], { DATA_DIR: target })).code, 0);
    t.not(
      (await cli(['restore', '--from', join(restoredDir.path, 'missing')], { DATA_DIR: target })).code,
      0,
    );

    server = await startServer(target);
    const me = await fetch(`${base()}/v2/me`, { headers: { authorization: `Bearer ${fresh}` } });
    t.is(me.status, 200, 'the API key made before the backup works on the restored server');
    const listed = await cli(['list-clients'], { DATA_DIR: target });
    t.is(listed.code, 0, listed.output);
    t.regex(listed.output, /"name":"CLI app"/);
    t.regex(listed.output, /"name":"Public app"/);
    const jwks = (await (await fetch(`${base()}/v2/auth/oauth2/jwks`)).json()) as { keys: unknown[] };
    t.true(jwks.keys.length >= 1, 'the signing keys decrypt with the restored cookie keys');
    await stopServer();
  },
);
