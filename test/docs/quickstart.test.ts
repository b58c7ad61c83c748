import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { authorizeInBrowser } from '../support/oauth.ts';
import {
  childEnv,
  exitOf,
  freePort,
  outputMatching,
  ROOT,
  runScript,
  tempDir,
  waitForStatus,
  watch,
} from '../support/process.ts';

/**
 * The README's quickstart, run as written: its first block starts the system (`npm start`; the
 * `npm install` before it has been done by whoever runs the tests), its second block is run by a
 * shell exactly as it stands. The person's part (open the address, sign in, allow) is played by a
 * cookie-keeping HTTP browser. Only the place differs: a free port and a temporary data folder.
 */

function quickstartBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Quickstart'));
  if (!section) throw new Error('README has no Quickstart section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
}

test('the quickstart works exactly as the README writes it', async (t) => {
  t.timeout(180_000);
  const [start, commands] = quickstartBlocks();
  t.is(start, 'npm install && npm start');
  const admin = /create-admin --email (\S+) --password '([^']+)'/.exec(commands!);
  t.truthy(admin, 'the second block creates an administrator');

  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = childEnv({
    DATA_DIR: dir.path,
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_URL: origin,
    ISSUER: origin,
  });
  const server = runScript('services/launcher/src/start.ts', [], env);
  t.teardown(async () => {
    server.process.kill('SIGTERM');
    await exitOf(server);
  });
  await waitForStatus(`${origin}/health/ready`, 200, 90_000, server);

  const shell = watch(
    spawn('bash', ['-e', '-c', commands!], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  t.teardown(() => {
    if (shell.process.exitCode === null) shell.process.kill('SIGKILL');
  });

  // The person: opens the address the command prints, signs in, allows.
  const address = (await outputMatching(shell, /https?:\/\/\S+\/auth\/oauth2\/authorize\?\S+/, 90_000))[0];
  const { outcome, consentShown } = await authorizeInBrowser(origin, address, {
    user: { email: admin![1]!, password: admin![2]! },
  });
  t.true(consentShown);
  t.is(outcome.kind, 'redirect', 'the authorization ends back at the command-line app');
  if (outcome.kind === 'redirect') await fetch(outcome.url);

  t.is(await exitOf(shell), 0, shell.output());
  t.regex(shell.output(), /GET \/v2\/me answered 200/);
  t.true(shell.output().includes(`"email": "${admin![1]}"`), shell.output());
});
