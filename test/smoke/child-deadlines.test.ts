import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import test from 'ava';
import { exitOf, outputMatching, ROOT, runToEnd, tempDir, watch } from '../support/process.ts';

// The test kit's waits on child processes have kill deadlines: a child that hangs fails its test
// with what it printed (and is stopped) instead of holding the test until ava's timeout. The
// deadlines here are short only so the file is quick; what is asserted is the failure, not a time.

const node = (code: string) =>
  watch(spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] }));

const HANGS = "console.log('started, then hanging'); setInterval(() => {}, 1000);";

test('exitOf stops a child that does not end by the deadline and fails with its output', async (t) => {
  const child = node(HANGS);
  await outputMatching(child, /hanging/);
  const error = await t.throwsAsync(() => exitOf(child, 200));
  t.regex(error!.message, /still running after 200 ms \(stopped\); it printed:\nstarted, then hanging/);
  t.not(child.process.exitCode ?? child.process.signalCode, null, 'the child is gone');
});

test('exitOf answers the exit code of a child that ends', async (t) => {
  t.is(await exitOf(node('process.exit(3)')), 3);
});

test('runToEnd has the kill deadline too', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const script = join(dir.path, 'hangs.js');
  await writeFile(script, HANGS);
  const error = await t.throwsAsync(() => runToEnd(relative(ROOT, script), [], process.env, 200));
  // What it printed by then depends on how soon it started; the exitOf test above checks that part.
  t.regex(error!.message, /still running after 200 ms \(stopped\); it printed:/);
});

test('outputMatching fails with the output when the child exits without printing the pattern', async (t) => {
  const error = await t.throwsAsync(() => outputMatching(node("console.log('something else')"), /wanted/));
  t.regex(error!.message, /exited \(0\) before printing \/wanted\/; it printed:\nsomething else/);
});

test('outputMatching stops a child that never prints the pattern by the deadline', async (t) => {
  const child = node(HANGS);
  await outputMatching(child, /hanging/);
  const error = await t.throwsAsync(() => outputMatching(child, /wanted/, 200));
  t.regex(
    error!.message,
    /nothing matching \/wanted\/ within 200 ms \(stopped\); it printed:\nstarted, then hanging/,
  );
  t.not(child.process.exitCode ?? child.process.signalCode, null, 'the child is gone');
});
