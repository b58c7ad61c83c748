import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '@sched/kit/node-flags';
import { FAIL_TIMEOUT_SECONDS, gatewayConfig } from './config.ts';

/**
 * N authorization-server and M API processes (the services' own entry points, each on its own
 * loopback port) behind Debian's nginx with deploy/nginx.conf's routing: the production layout on
 * one machine. Used by deploy/run-gateway.ts (operators) and by the tests (test/support/gateway.ts).
 */

const ROOT = new URL('../../', import.meta.url).pathname;
// Each service through the launcher that runs `npm run build`'s compiled entry point while it is
// up to date (else services/auth/src/main.ts, ...): a process starts faster and uses less memory.
const LAUNCHER = 'services/launcher/bin/run.mjs';

export type ServiceKind = 'auth' | 'api';

export interface GatewayOptions {
  auth: number;
  api: number;
  /** The gateway's port (default: a free one). */
  port?: number;
  /** Environment of the services (DATABASE_URL, REDIS_URL, COOKIE_KEYS, ...). */
  env: NodeJS.ProcessEnv;
  /** nginx's folder (config, pid, logs, temp files). */
  dir: string;
  /** Runs `cli migrate` before the services start (the compose file's migrate job). */
  migrate?: boolean;
  /** See GatewayConfigOptions.upstreamHeader. */
  upstreamHeader?: boolean;
  /** Every line a process prints, with its name (`auth-1`, `api-2`, `nginx`). */
  onLine?: (name: string, line: string) => void;
  /** How long a process may take to become ready (default 60 s). */
  readyTimeoutMs?: number;
}

export interface ManagedProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** The process's last output (for diagnosis). */
  output(): string;
  /** Starts it and resolves once it is ready. */
  start(): Promise<void>;
  /** Sends `signal` (SIGTERM: drain and stop; SIGKILL: a crash) and resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Gateway {
  url: string;
  port: number;
  /** nginx's folder: nginx.conf, access.log, error.log. */
  dir: string;
  auth: ManagedProcess[];
  api: ManagedProcess[];
  nginx: ManagedProcess;
  /**
   * SIGTERM and start again each service process, one at a time, each ready and back in the
   * gateway's rotation before the next.
   */
  rollingRestart(onEach?: (process: ManagedProcess) => void): Promise<void>;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitReady(
  url: string,
  deadlineMs: number,
  alive: () => boolean,
  what: () => string,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    if (!alive()) throw new Error(`exited before it was ready:\n${what()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.status === 200) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not ready within ${deadlineMs} ms (last: ${last}):\n${what()}`);
}

interface ProcessSpec {
  name: string;
  port: number;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  readyPath: string;
}

function managed(spec: ProcessSpec, options: GatewayOptions): ManagedProcess {
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let output = '';
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${spec.port}`;

  function collect(stream: NodeJS.ReadableStream | null): void {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-20_000);
      if (!options.onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine(spec.name, line);
    });
  }

  return {
    name: spec.name,
    port: spec.port,
    url,
    get pid() {
      return child?.pid;
    },
    get running() {
      return alive();
    },
    output: () => output,
    async start() {
      if (alive()) throw new Error(`${spec.name} is running already`);
      const started = spawn(spec.command, spec.args, {
        cwd: ROOT,
        env: spec.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
      collect(started.stdout);
      collect(started.stderr);
      await waitReady(`${url}${spec.readyPath}`, options.readyTimeoutMs ?? 60_000, alive, () => output);
    },
    async stop(signal = 'SIGTERM') {
      if (!alive()) return child?.exitCode ?? null;
      child?.kill(signal);
      return exited;
    },
  };
}

async function runToEnd(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${args.join(' ')} failed (exit ${code}):\n${output}`);
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const serviceEnv = (servicePort: number): NodeJS.ProcessEnv => ({
    APP_URL: url,
    BASE_URL: url,
    ...options.env,
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    // Only the gateway reaches the processes: its X-Forwarded-* headers are the client's.
    TRUST_PROXY: 'true',
  });
  if (options.migrate) await runToEnd([LAUNCHER, 'cli', 'migrate'], serviceEnv(0));

  const make = async (kind: ServiceKind, count: number) => {
    const processes: ManagedProcess[] = [];
    for (let i = 1; i <= count; i++) {
      const servicePort = await freePort();
      processes.push(
        managed(
          {
            name: `${kind}-${i}`,
            port: servicePort,
            command: process.execPath,
            // The production Node flags, as the Docker images and `npm start` run them.
            args: [...SERVICE_NODE_FLAGS, LAUNCHER, kind],
            env: serviceEnv(servicePort),
            readyPath: '/health/ready',
          },
          options,
        ),
      );
    }
    return processes;
  };
  const auth = await make('auth', options.auth);
  const api = await make('api', options.api);

  await mkdir(options.dir, { recursive: true });
  const configFile = join(options.dir, 'nginx.conf');
  await writeFile(
    configFile,
    gatewayConfig({
      dir: options.dir,
      port,
      authPorts: auth.map((p) => p.port),
      apiPorts: api.map((p) => p.port),
      upstreamHeader: options.upstreamHeader ?? false,
    }),
  );
  const nginx = managed(
    {
      name: 'nginx',
      port,
      command: process.env.NGINX_BIN ?? 'nginx',
      // In the foreground, as a child that stops with us; -e: errors before the config is read.
      args: ['-p', options.dir, '-c', configFile, '-e', 'stderr', '-g', 'daemon off;'],
      env: process.env,
      readyPath: '/_gateway/health',
    },
    options,
  );

  const services = [...auth, ...api];
  const gateway: Gateway = {
    url,
    port,
    dir: options.dir,
    auth,
    api,
    nginx,
    async rollingRestart(onEach) {
      for (const service of services) {
        await service.stop('SIGTERM');
        await service.start();
        // nginx skipped the process while it was down and tries it again only after its fail
        // timeout: stopping the next one sooner could leave a service with none to send to.
        await new Promise((resolve) => setTimeout(resolve, (FAIL_TIMEOUT_SECONDS + 1) * 1000));
        onEach?.(service);
      }
    },
    async stop() {
      // nginx first (SIGQUIT: it finishes what it forwards), then the services drain.
      await nginx.stop('SIGQUIT');
      await Promise.all(services.map((service) => service.stop('SIGTERM')));
    },
  };
  try {
    await Promise.all(services.map((service) => service.start()));
    await nginx.start();
  } catch (error) {
    await Promise.all([nginx, ...services].map((p) => p.stop('SIGKILL')));
    throw error;
  }
  return gateway;
}
