import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import type { Pinning } from './load.ts';

/**
 * A redis-server of the benchmark's own, pinned to the load generator's CPU, so that the CPU the
 * servers under test are pinned to is theirs alone. With the machine's Redis the kernel places
 * Redis where it likes: on the servers' CPU it takes turns with the API (and its socket work
 * lands there), which moved the API's figures by 10 points from run to run while the bare handler
 * (no Redis) stayed put. In production Redis runs on its own host, not beside the API.
 *
 * Null (use REDIS_URL as it is) without REDIS_URL, without pinning, without `redis-server` on the
 * PATH, or with BENCH_PRIVATE_REDIS=0.
 */
export interface PrivateRedis {
  url: string;
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function redisServerPath(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** One inline PING over a fresh connection; true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function waitForPing(child: ChildProcess, port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not answer PING');
}

export async function startPrivateRedis(pinning: Pinning | null): Promise<PrivateRedis | null> {
  const path = redisServerPath();
  if (!process.env.REDIS_URL || !pinning || !path || process.env.BENCH_PRIVATE_REDIS === '0') return null;
  const port = await freePort();
  const child = spawn(
    'taskset',
    [
      '-c',
      pinning.generator,
      path,
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', stop);
  try {
    await waitForPing(child, port);
  } catch (error) {
    stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}
