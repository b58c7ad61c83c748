// N authorization-server and M API processes behind nginx on one machine (deploy/README.md,
// "Many processes on one machine"). Run with Node 24 from the repository root:
//
//   DATABASE_URL=postgres://... REDIS_URL=redis://... COOKIE_KEYS=... \
//     node deploy/run-gateway.ts --auth 2 --api 3 --port 8080 [--dir ./.gateway]
//
// Migrates the database, starts the processes on free loopback ports, then nginx on --port with
// deploy/nginx.conf's routing. SIGHUP restarts the processes one at a time (a rolling restart);
// SIGINT or SIGTERM stops everything. Lines of every process are printed with its name.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { type Gateway, startGateway } from './gateway/processes.ts';

function fail(message: string): never {
  console.error(`run-gateway: ${message}`);
  process.exit(2);
}

let values: { auth: string; api: string; port: string; dir: string };
try {
  ({ values } = parseArgs({
    options: {
      auth: { type: 'string', default: '2' },
      api: { type: 'string', default: '2' },
      port: { type: 'string', default: '8080' },
      dir: { type: 'string', default: './.gateway' },
    },
    strict: true,
  }) as { values: typeof values });
} catch (error) {
  fail((error as Error).message);
}

const count = (name: string, text: string, min: number, max: number): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    fail(`--${name} must be a whole number from ${min} to ${max}`);
  return value;
};
const auth = count('auth', values.auth, 1, 64);
const api = count('api', values.api, 1, 64);
const port = count('port', values.port, 1, 65535);
for (const name of ['DATABASE_URL', 'REDIS_URL', 'COOKIE_KEYS']) {
  if (!process.env[name]) fail(`${name} must be set (the services run on Postgres and Redis)`);
}

// Signals are handled from the first moment: nginx answers its health check a little before
// startGateway returns, and a SIGTERM in that window must stop the children, not orphan them.
let gateway: Gateway | undefined;
let stopping = false;
const stopAll = (): void => {
  if (!gateway) return;
  console.log('run-gateway: stopping');
  gateway.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    stopAll();
  });
}

gateway = await startGateway({
  auth,
  api,
  port,
  dir: resolve(values.dir),
  migrate: true,
  env: process.env,
  onLine: (name, line) => console.log(`${name.padEnd(7)} ${line}`),
}).catch((error: unknown) => fail(`could not start: ${(error as Error).message}`));
const started = gateway;

console.log(
  `run-gateway: ${started.url} -> auth ${started.auth.map((p) => p.port).join(',')}; api ${started.api.map((p) => p.port).join(',')} (nginx files in ${started.dir})`,
);
if (stopping) stopAll();

let busy = false;
process.on('SIGHUP', () => {
  if (busy || stopping) return;
  busy = true;
  console.log('run-gateway: rolling restart');
  started
    .rollingRestart((restarted) => console.log(`run-gateway: ${restarted.name} restarted`))
    .then(
      () => console.log('run-gateway: rolling restart done'),
      (error: unknown) => console.error(`run-gateway: rolling restart failed: ${(error as Error).message}`),
    )
    .finally(() => {
      busy = false;
    });
});
