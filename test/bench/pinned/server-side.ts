import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { allocationCounter } from './allocation.ts';
import { startAllocationProfile } from './allocation-profile.ts';
import { startCpuProfile } from './cpu-profile.ts';
import type { CloseRequest, ReadyMessage, StatsMessage, StatsRequest } from './protocol.ts';

/**
 * The child side of a bench server process: counts the requests each handler answers, reports the
 * process's own CPU time, event-loop use and heap allocation over IPC, and closes on request.
 * A server script builds its servers, wraps their handlers with `counted`, then calls
 * `announceReady`. Run without IPC (`node <script>`), it prints the ready data as JSON and stays
 * up until SIGINT/SIGTERM: that is how to profile it (--cpu-prof, --heap-prof, callgrind).
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const counts: Record<string, number> = {};

/** `handler`, counting each request under `key` (the parent turns CPU time into CPU per request). */
export function counted(key: string, handler: Handler): Handler {
  counts[key] ??= 0;
  return (req, res) => {
    counts[key]!++;
    handler(req, res);
  };
}

/**
 * Counts the requests a server receives under `key`, for servers whose handler a script does not
 * build itself (a whole system started by a test-kit helper).
 */
export function countServerRequests(key: string, server: Server): void {
  counts[key] ??= 0;
  server.prependListener('request', () => {
    counts[key]!++;
  });
}

/**
 * A plain node:http server on 127.0.0.1, port 0, for a baseline: same keep-alive timeout as the
 * kit's service server (Node's default, 5 s).
 */
export async function listenPlain(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}` };
}

/** Closes plain servers, dropping their keep-alive connections. */
export async function closePlain(...servers: Server[]): Promise<void> {
  for (const server of servers) {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

const allocated = allocationCounter();
const profileFile = process.env.BENCH_ALLOCATION_PROFILE;

function stats(id: number): StatsMessage {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  return {
    type: 'stats',
    id,
    requests: { ...counts },
    cpuUs: cpu.user + cpu.system,
    systemUs: cpu.system,
    elu: { idle: elu.idle, active: elu.active },
    allocatedBytes: allocated(),
  };
}

/** Tells the parent the servers listen; `close` runs on its close request or on SIGINT/SIGTERM. */
export function announceReady<T>(data: T, close: () => Promise<void>): void {
  const cpuProfilePrefix = process.env.BENCH_CPU_PROFILE;
  const stopCpuProfile = cpuProfilePrefix ? startCpuProfile(cpuProfilePrefix) : undefined;
  // From ready on (set-up left out); under the harness every server writes a file of its own.
  const stopProfile = profileFile
    ? startAllocationProfile(process.send ? `${profileFile}.${process.pid}` : profileFile)
    : undefined;
  let closing = false;
  const shutDown = async () => {
    if (closing) return;
    closing = true;
    try {
      await (await stopProfile)?.();
      await (await stopCpuProfile)?.();
      await close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutDown());
  process.on('SIGTERM', () => void shutDown());
  if (!process.send) {
    console.log(JSON.stringify(data));
    return;
  }
  process.on('message', (message: StatsRequest | CloseRequest) => {
    if (message.type === 'stats') process.send!(stats(message.id));
    if (message.type === 'close') void shutDown();
  });
  const ready: ReadyMessage<T> = { type: 'ready', data };
  process.send(ready);
}
