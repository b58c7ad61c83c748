import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { DataDirBusyError, lockDataDir, readLockHolder } from '@sched/launcher/data-dir';
import {
  childEnv,
  exitOf,
  freePort,
  outputMatching,
  ROOT,
  runToEnd,
  tempDir,
  waitForStatus,
  watch,
} from '../support/process.ts';

/**
 * The process around the embedded default: `npm start` stops with the signal npm gets (no orphan
 * server), and the data-folder lock cannot be fooled by a dead, zombie or reused process id.
 */

test('the lock: a second holder is refused with the first one named; released, it is free again', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const release = await lockDataDir(dir.path);
  t.is(await readLockHolder(dir.path), undefined, 'our own lock is not someone else');
  await t.throwsAsync(
    () =>
      // Another process would be refused; in this one, a second lock() meets the live socket.
      lockDataDir(dir.path),
    { instanceOf: DataDirBusyError, message: new RegExp(`in use by process ${process.pid}`) },
  );
  await release();
  const again = await lockDataDir(dir.path);
  await again();
});

test('the lock is not fooled by a process killed with -9 nor by a pid file naming a live process', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  // A holder that dies without releasing (kill -9 leaves the socket file behind).
  const holder = watch(
    spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { lockDataDir } from '${join(ROOT, 'services/launcher/src/data-dir.ts')}';
       await lockDataDir(process.argv[1]); console.log('locked'); setInterval(() => {}, 1000);`,
        dir.path,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  t.teardown(() => {
    holder.process.kill('SIGKILL');
  });
  await outputMatching(holder, /locked/);
  t.is(await readLockHolder(dir.path), holder.process.pid);
  await t.throwsAsync(() => lockDataDir(dir.path), { instanceOf: DataDirBusyError });
  holder.process.kill('SIGKILL');
  await exitOf(holder);
  t.true(existsSync(join(dir.path, 'server.lock')), 'the dead holder left its socket file');
  // An old-style pid file naming a live process (pid 1, or our parent) fools nobody either.
  await writeFile(join(dir.path, 'server.pid'), String(process.ppid));
  t.is(await readLockHolder(dir.path), undefined);
  const release = await lockDataDir(dir.path);
  await release();
});

test('a data folder that was open to every account is closed to others when taken', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const folder = join(dir.path, 'data');
  await mkdir(folder);
  await chmod(folder, 0o775);
  const release = await lockDataDir(folder);
  await release();
  t.is((await stat(folder)).mode & 0o777, 0o770, "the group's access is the operator's to keep");
});

test('the lock is not taken from a holder that is stopped (Ctrl-Z): alive, though it cannot answer', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const holder = watch(
    spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { lockDataDir } from '${join(ROOT, 'services/launcher/src/data-dir.ts')}';
       import { createServer } from 'node:net';
       await lockDataDir(process.argv[1]);
       createServer(() => {}).listen(process.argv[1] + '/control.sock', () => console.log('locked'));
       setInterval(() => {}, 1000);`,
        dir.path,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  t.teardown(() => {
    holder.process.kill('SIGCONT');
    holder.process.kill('SIGKILL');
  });
  await outputMatching(holder, /locked/);
  holder.process.kill('SIGSTOP');
  // Two processes on one PGlite folder corrupt it once the stopped one resumes.
  await t.throwsAsync(() => lockDataDir(dir.path), {
    instanceOf: DataDirBusyError,
    message: /does not answer/,
  });
  t.is(await readLockHolder(dir.path), 'unknown');
  // Its control socket accepts connections too (the kernel does, for a stopped process): the CLI
  // says so instead of waiting for ever.
  const cli = await runToEnd(
    'services/launcher/src/cli.ts',
    ['list-clients'],
    childEnv({ DATA_DIR: dir.path }),
  );
  t.is(cli.code, 1, cli.output);
  t.regex(cli.output.trim(), /^CommandInputError: the server holding .* does not answer \(stopped\?\)/);
});

test('SIGTERM to the npm process of `npm start` stops the server within the shutdown timeout', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const port = await freePort();
  const npm = watch(
    spawn('npm', ['start'], {
      cwd: ROOT,
      env: childEnv({ DATA_DIR: dir.path, PORT: String(port), HOST: '127.0.0.1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  t.teardown(() => {
    if (npm.process.exitCode === null) npm.process.kill('SIGKILL');
  });
  await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 60_000, npm);
  const serverPid = await readLockHolder(dir.path);
  if (typeof serverPid !== 'number') throw new Error(`the server holds the data folder: ${serverPid}`);
  npm.process.kill('SIGTERM');
  await exitOf(npm);
  const until = Date.now() + 15_000;
  let alive = true;
  while (Date.now() < until) {
    try {
      process.kill(serverPid, 0);
    } catch {
      alive = false;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (alive) process.kill(serverPid!, 'SIGKILL');
  t.false(alive, `the server (pid ${serverPid}) outlived npm:\n${npm.output()}`);
  await t.throwsAsync(() => fetch(`http://127.0.0.1:${port}/health/alive`));
});
