import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** A port nobody listens on right now (the OS picks it): the gateway runner's, one copy. */
export { freePort } from '../../deploy/gateway/processes.ts';

export async function tempDir(prefix = 'sched-test-'): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** The pids of a process's children (Linux, /proc); empty when it has none. */
export function childPids(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

/** Environment for a child: ours, minus the servers unless given, plus overrides. */
export function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface Child {
  process: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** A spawned child (stdout and stderr piped) as a Child: its output collected, its exit awaited. */
export function watch(child: ChildProcess): Child {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return { process: child, output: () => output, exited };
}

/** Runs a repository script with the Node running the tests (Node 24). */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  return watch(
    spawn(process.execPath, [join(ROOT, script), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** Polls a URL until it answers with the wanted status, or fails after the deadline. */
export async function waitForStatus(
  url: string,
  status: number,
  deadlineMs: number,
  child?: Child,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    if (child && child.process.exitCode !== null) throw new Error(`process exited early:\n${child.output()}`);
    try {
      const response = await fetch(url);
      if (response.status === status) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `${url} did not answer ${status} in ${deadlineMs} ms (last: ${last})\n${child?.output() ?? ''}`,
  );
}

/**
 * How long a child that ends on its own (a CLI command, a server told to stop, a script) may run.
 * Not a timing assertion: a kill deadline, kept well under ava's timeout (120 s without a result),
 * so that a child that hangs fails its test with what it printed instead of eating CI's time.
 */
export const CHILD_DEADLINE_MS = 60_000;

/**
 * How long a start that must be refused may run before it counts as having started instead. Not a
 * timing assertion: a refusal is one line within a second or two, and this kill deadline only
 * stops a child that started a real server (it would serve until ava's timeout, hiding why),
 * kept well under that timeout so the test fails with what the child printed.
 */
export const REFUSAL_DEADLINE_MS = 30_000;

/** After SIGTERM, how long a started server may drain before SIGKILL (a kill deadline too). */
const STOP_GRACE_MS = 10_000;

/** The child's exit code, or 'running' when it has not exited within `ms`. */
async function exitWithin(child: Child, ms: number): Promise<number | null | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'running'>((resolve) => {
    timer = setTimeout(() => resolve('running'), ms);
  });
  try {
    return await Promise.race([child.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops a child that outran its deadline: SIGTERM, then SIGKILL after the grace. */
async function stopLate(child: Child): Promise<void> {
  child.process.kill('SIGTERM');
  if ((await exitWithin(child, STOP_GRACE_MS)) === 'running') {
    child.process.kill('SIGKILL');
    await child.exited;
  }
}

/**
 * The exit code of a child that must end on its own (or after a signal the test sent). One still
 * running after `deadlineMs` is stopped (SIGTERM, then SIGKILL) and the wait fails at once with
 * what it printed, rather than hanging until ava's timeout.
 */
export async function exitOf(child: Child, deadlineMs = CHILD_DEADLINE_MS): Promise<number | null> {
  const code = await exitWithin(child, deadlineMs);
  if (code !== 'running') return code;
  await stopLate(child);
  throw new Error(
    `${child.process.spawnfile} ${child.process.spawnargs.slice(1).join(' ')} was still running after ${deadlineMs} ms (stopped); it printed:\n${child.output()}`,
  );
}

/**
 * Waits until the child's output matches `pattern` (the match). Fails with the output when the
 * child exits first, or, after `deadlineMs`, stops it and fails.
 */
export async function outputMatching(
  child: Child,
  pattern: RegExp,
  deadlineMs = CHILD_DEADLINE_MS,
): Promise<RegExpExecArray> {
  const found = () => pattern.exec(child.output());
  const seen = new Promise<RegExpExecArray>((resolve) => {
    const check = () => {
      const match = found();
      if (!match) return;
      child.process.stdout?.off('data', check);
      child.process.stderr?.off('data', check);
      resolve(match);
    };
    // After watch's listeners (registered first), so the chunk is in output() already.
    child.process.stdout?.on('data', check);
    child.process.stderr?.on('data', check);
    check();
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), deadlineMs);
  });
  try {
    // 'close' rather than the exit: by then all it printed has been read (the deadline bounds this
    // too, should a grandchild keep its pipes open).
    const closed = new Promise<'exited'>((resolve) => {
      if (child.process.stdout?.closed !== false && child.process.stderr?.closed !== false) resolve('exited');
      else child.process.once('close', () => resolve('exited'));
    });
    const outcome = await Promise.race([seen, closed, late]);
    if (typeof outcome === 'object') return outcome;
    const match = found();
    if (match) return match;
    if (outcome === 'late') await stopLate(child);
    throw new Error(
      `${outcome === 'late' ? `nothing matching ${pattern} within ${deadlineMs} ms (stopped)` : `exited (${child.process.exitCode}) before printing ${pattern}`}; it printed:\n${child.output()}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a script to completion (within `exitOf`'s kill deadline): its exit code and output. */
export async function runToEnd(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  deadlineMs = CHILD_DEADLINE_MS,
): Promise<{ code: number | null; output: string }> {
  const child = runScript(script, args, env);
  const code = await exitOf(child, deadlineMs);
  return { code, output: child.output() };
}

/**
 * Waits for a child that must refuse to start: its exit code and output. One still running after
 * `deadlineMs` started instead: it is stopped (SIGTERM, then SIGKILL) and the test fails at once
 * with what it printed, rather than hanging until ava's timeout.
 */
export async function refusal(
  child: Child,
  deadlineMs = REFUSAL_DEADLINE_MS,
): Promise<{ code: number | null; output: string }> {
  const code = await exitWithin(child, deadlineMs);
  if (code !== 'running') return { code, output: child.output() };
  await stopLate(child);
  throw new Error(
    `expected a refusal to start, but the process was still running after ${deadlineMs} ms (stopped); it printed:\n${child.output()}`,
  );
}

/** Runs a script that must refuse to start: `runToEnd`, with `refusal`'s kill deadline. */
export function runRefused(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return refusal(runScript(script, args, env));
}

/**
 * Waits for a child that was told to stop (its `exited`); one still running after the grace is
 * killed (SIGKILL), so a stop never hangs a test or its teardown.
 */
export async function exitedOrKilled(
  child: ChildProcess | undefined,
  exited: Promise<unknown>,
  graceMs = STOP_GRACE_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  try {
    if ((await Promise.race([exited, late])) !== 'late') return;
  } finally {
    clearTimeout(timer);
  }
  child?.kill('SIGKILL');
  await exited;
}
