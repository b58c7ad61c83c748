import { type ChildProcess, spawn } from 'node:child_process';
import { SERVICE_NODE_FLAGS } from '@sched/kit/node-flags';
import type { Pinning } from '../load.ts';
import type { ReadyMessage, StatsMessage, StatsRequest } from './protocol.ts';

/**
 * The parent side of a bench server process: starts a server script (one that ends with
 * server-side.ts's `announceReady`) in a Node process of its own, pinned to the servers' CPU, and
 * asks it for its counters. Each server under comparison gets its own process, so one's garbage,
 * JIT state and threads never land on another's bill.
 */

export interface BenchServer<T = unknown> {
  name: string;
  pid: number;
  /** What the script passed to announceReady. */
  ready: T;
  stats(): Promise<StatsMessage>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** A short name for messages. */
  name: string;
  /** Path of the server script. */
  script: string;
  args?: string[];
  /** Added to this process's environment. */
  env?: Record<string, string | undefined>;
  /** Node flags; the production flags by default, so the benchmark measures what runs. */
  nodeFlags?: readonly string[];
  pinning: Pinning | null;
  /** How long the script may take to announce itself (fixtures, sign-ins); 20 minutes by default. */
  readyTimeoutMs?: number;
}

export async function startBenchServer<T>(options: StartOptions): Promise<BenchServer<T>> {
  const node = [
    process.execPath,
    ...(options.nodeFlags ?? SERVICE_NODE_FLAGS),
    options.script,
    ...(options.args ?? []),
  ];
  // taskset execs node: the pid is the server's own.
  const [file, args] = options.pinning
    ? ['taskset', ['-c', options.pinning.servers, ...node]]
    : [node[0]!, node.slice(1)];
  const child: ChildProcess = spawn(file, args, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name}: not ready in time`)),
      options.readyTimeoutMs ?? 1_200_000,
    );
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${options.name}: exited with ${code} before ready`)));
    child.on('message', (message: ReadyMessage<T>) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message.data);
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  child.removeAllListeners('exit');

  let nextId = 0;
  const pending = new Map<number, (stats: StatsMessage) => void>();
  child.on('message', (message: StatsMessage) => {
    if (message.type !== 'stats') return;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  return {
    name: options.name,
    pid: child.pid!,
    ready,
    stats() {
      const id = nextId++;
      return new Promise<StatsMessage>((resolve) => {
        pending.set(id, resolve);
        const request: StatsRequest = { type: 'stats', id };
        child.send(request);
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Node flag sets to compare our server with, besides the production flags: BENCH_FLAGS_ALT, sets
 * separated by `;` (`-` for none: V8's defaults), e.g. `--max-semi-space-size=64;-`. Each set adds
 * a target of our server started with those flags, in the same alternating rounds.
 */
export function alternativeFlagSets(): { label: string; flags: string[] }[] {
  const given = process.env.BENCH_FLAGS_ALT;
  if (!given) return [];
  return given.split(';').map((set) => {
    const flags = set.trim() === '-' ? [] : set.trim().split(/\s+/).filter(Boolean);
    return { label: flags.length > 0 ? flags.join(' ') : "V8's defaults", flags };
  });
}
