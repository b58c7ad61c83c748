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

/** Runs a repository script with the Node running the tests (Node 24). */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
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

/** Runs a script to completion and returns its exit code and output. */
export async function runToEnd(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const child = runScript(script, args, env);
  const code = await child.exited;
  return { code, output: child.output() };
}

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
  child.process.kill('SIGTERM');
  if ((await exitWithin(child, STOP_GRACE_MS)) === 'running') {
    child.process.kill('SIGKILL');
    await child.exited;
  }
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
