import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Load generation in a process of its own, pinned to a CPU of its own when the machine has two or
 * more (taskset): a generator sharing the server's event loop or core takes CPU time from it, and
 * the cheaper the handler the larger that share, which distorts a ratio between a cheap and an
 * expensive handler. Two generators: autocannon (the Node standard, itself a Node process, it
 * saturates near 13k requests/s on this machine's cores) and wrk (C, epoll; several times
 * cheaper per request, so it can saturate a bare handler).
 */

export interface LoadResult {
  tool: 'autocannon' | 'wrk';
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors and timeouts. */
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

/** Which CPUs to pin the servers and the generator to, or null when pinning is not possible. */
export interface Pinning {
  servers: string;
  generator: string;
}

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function choosePinning(): Pinning | null {
  const cpus = availableParallelism();
  if (cpus < 2 || !hasCommand('taskset') || process.env.BENCH_PIN === '0') return null;
  return { servers: String(cpus - 1), generator: '0' };
}

export const wrkAvailable = (): boolean => hasCommand('wrk');

/** Runs a command (through taskset when pinned) and returns its standard output. */
function runCommand(command: string, args: string[], cpu: string | undefined): Promise<string> {
  const [file, argv] = cpu === undefined ? [command, args] : ['taskset', ['-c', cpu, command, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited with ${code}: ${err.trim()}`)),
    );
  });
}

const autocannonScript = new URL('./autocannon-process.ts', import.meta.url).pathname;

export async function runAutocannon(options: LoadOptions, pinning: Pinning | null): Promise<LoadResult> {
  const out = await runCommand(
    process.execPath,
    [autocannonScript, JSON.stringify(options)],
    pinning?.generator,
  );
  return JSON.parse(out) as LoadResult;
}

/** wrk prints durations as 812.00us, 2.31ms or 1.02s. */
function wrkMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  const unit = match[2];
  return unit === 'us' ? value / 1000 : unit === 'ms' ? value : unit === 's' ? value * 1000 : value * 60_000;
}

export async function runWrk(options: LoadOptions, pinning: Pinning | null): Promise<LoadResult> {
  const args = ['-t1', `-c${options.connections}`, `-d${options.durationSeconds}s`, '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(options.url);
  const out = await runCommand('wrk', args, pinning?.generator);
  const percentile = (p: string) => wrkMs(new RegExp(`^\\s*${p}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '');
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    tool: 'wrk',
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN),
    requestsPerSecond: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN)),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}
