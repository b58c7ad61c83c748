import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { exitedOrKilled } from './process.ts';

// One redis-server process (Debian's binary) of a test set-up: cluster node, master, replica or
// sentinel, each in its own folder under the set-up's temp dir, logging to its own output.

const run = promisify(execFile);

async function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The kernel's lowest ephemeral port (what outgoing connections and `listen(0)` are given). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12000 ? low : 32768;
  } catch {
    return 32768;
  }
}

/**
 * `count` loopback ports nobody listens on. With `busOffset`, port + offset is free too (a
 * cluster node also listens on its bus port, 10000 above its own). Below the ephemeral range: a
 * port found free there could be handed to some other test's outgoing connection before the
 * redis-server binds it (seen once in CI: "Address already in use" for a cluster node).
 */
export async function freePorts(count: number, busOffset = 0): Promise<number[]> {
  const ports: number[] = [];
  const low = 10000;
  const span = ephemeralLow() - busOffset - low;
  while (ports.length < count) {
    const candidate = low + Math.floor(Math.random() * span);
    if (ports.includes(candidate) || ports.some((port) => port + busOffset === candidate)) continue;
    if (!(await canListen(candidate))) continue;
    if (busOffset && !(await canListen(candidate + busOffset))) continue;
    ports.push(candidate);
  }
  return ports;
}

/** Runs redis-cli against a port; resolves with its output (trimmed). */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    timeout: 60_000,
  });
  return stdout.trim();
}

export async function waitUntil(
  what: string,
  deadlineMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      if (await probe()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `${what}: not reached within ${deadlineMs} ms${last ? ` (last error: ${String(last)})` : ''}`,
  );
}

export class RedisServerProcess {
  readonly port: number;
  readonly dir: string;
  readonly #args: string[];
  #child: ChildProcess | undefined;
  #output = '';
  #exited: Promise<void> = Promise.resolve();
  #paused = false;

  /** `args` are redis-server arguments after the config file (or none); `--port` is added. */
  constructor(port: number, dir: string, args: string[]) {
    this.port = port;
    this.dir = dir;
    this.#args = args;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Running and not paused: it answers commands. */
  get answering(): boolean {
    return this.running && !this.#paused;
  }

  /**
   * SIGSTOP: the process keeps its port and the kernel still accepts connections, but nothing is
   * answered (a hung host, or one whose packets are held) until `resume()`.
   */
  pause(): void {
    if (!this.running || this.#paused) return;
    this.#child?.kill('SIGSTOP');
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#child?.kill('SIGCONT');
    this.#paused = false;
  }

  output(): string {
    return this.#output;
  }

  /** Starts (or restarts, keeping its folder and so its cluster identity) and waits until it answers. */
  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const child = spawn(
      'redis-server',
      [...this.#args, '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir],
      { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    const collect = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitUntil(`redis-server on ${this.port}`, 10_000, async () => {
      if (!this.running) throw new Error(`exited:\n${this.#output}`);
      return (await redisCli(this.port, 'PING')) === 'PONG';
    });
  }

  /** SIGKILL (a crash) or SIGTERM (a clean stop); resolves once the process is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.#child?.kill(signal);
    // A stopped process acts on SIGTERM only once continued.
    this.resume();
    await exitedOrKilled(this.#child, this.#exited);
  }
}
