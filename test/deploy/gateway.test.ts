import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { gatewayConfig, TEMPLATE_PATH } from '../../deploy/gateway/config.ts';
import { createTestDatabase } from '../support/database.ts';
import {
  CHILD_DEADLINE_MS,
  childEnv,
  exitOf,
  childPids,
  freePort,
  runScript,
  runToEnd,
  tempDir,
  waitForStatus,
} from '../support/process.ts';

// The one-machine gateway (deploy/gateway, deploy/run-gateway.ts): nginx's config made from
// deploy/nginx.conf, and the operator script that runs it.

const run = promisify(execFile);
const template = readFileSync(TEMPLATE_PATH, 'utf8');
const options = { dir: '/srv/gw', port: 18080, authPorts: [4001, 4002], apiPorts: [5001] };

test('the generated config is deploy/nginx.conf with only the Docker-only lines replaced', (t) => {
  const config = gatewayConfig(options, template);
  const removed = template.split('\n').filter((line) => !config.split('\n').includes(line));
  t.deepEqual(
    removed.map((line) => line.trim().split(' ')[0]),
    ['user', 'worker_processes', 'pid', 'error_log', '#', 'resolver', 'resolver_timeout', 'access_log']
      .concat(['client_body_temp_path', 'proxy_temp_path', 'fastcgi_temp_path', 'uwsgi_temp_path'])
      .concat(['scgi_temp_path', 'server', 'server', 'listen']),
  );
  t.true(
    config.includes('    server 127.0.0.1:4001 max_fails=1 fail_timeout=2s;\n    server 127.0.0.1:4002'),
  );
  t.true(config.includes('listen 127.0.0.1:18080;'));
  t.true(config.includes('pid /srv/gw/nginx.pid;'));
  // The retry rule comes from the template: idempotent requests only, on errors and 502; a 503
  // (an outage answer) passes through.
  t.regex(config, /proxy_next_upstream error timeout http_502;/);
  t.notRegex(config, /proxy_next_upstream [^;]*non_idempotent/);
  t.false(config.includes('X-Upstream'));
  t.true(gatewayConfig({ ...options, upstreamHeader: true }, template).includes('add_header X-Upstream'));
});

test('a template the generator does not understand is refused, not half-converted', (t) => {
  t.throws(() => gatewayConfig(options, template.replace('server api:3000 resolve;', 'server api:3000;')), {
    message: /expected one 'server api:\.\.\.', found 0/,
  });
  t.throws(() => gatewayConfig({ ...options, apiPorts: [] }, template), { message: /at least one process/ });
});

test('nginx accepts the generated config', async (t) => {
  const dir = await tempDir('sched-gateway-config-');
  try {
    const file = join(dir.path, 'nginx.conf');
    await writeFile(file, gatewayConfig({ ...options, dir: dir.path }, template));
    const { stderr } = await run('nginx', ['-t', '-p', dir.path, '-c', file, '-e', 'stderr'], {
      timeout: CHILD_DEADLINE_MS,
    });
    t.regex(stderr, /test is successful/);
  } finally {
    await dir.remove();
  }
});

test('run-gateway refuses bad arguments and missing settings with one line', async (t) => {
  const bad = await runToEnd('deploy/run-gateway.ts', ['--auth', '0'], childEnv({}));
  t.is(bad.code, 2);
  t.regex(bad.output, /^run-gateway: --auth must be a whole number from 1 to 64\n$/);
  const unset = await runToEnd('deploy/run-gateway.ts', [], childEnv({}));
  t.is(unset.code, 2);
  t.regex(unset.output, /DATABASE_URL must be set/);
});

// Serial: both runs use the services' own Redis key names in database 9.
const withServers = process.env.DATABASE_URL && process.env.REDIS_URL ? test.serial : test.skip;

async function startRunGateway() {
  const database = await createTestDatabase({ migrate: false });
  const dir = await tempDir('sched-run-gateway-');
  const port = await freePort();
  const gateway = runScript(
    'deploy/run-gateway.ts',
    ['--auth', '1', '--api', '1', '--port', String(port), '--dir', dir.path],
    childEnv({
      DATABASE_URL: database.url,
      REDIS_URL: `${process.env.REDIS_URL!.replace(/\/\d*$/, '')}/9`,
      COOKIE_KEYS: 'run-gateway-test-key-0123456789abcdefgh',
      ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
    }),
  );
  const cleanUp = async () => {
    await dir.remove();
    await database.drop();
  };
  return { port, gateway, cleanUp };
}

withServers(
  'run-gateway migrates, serves both services on one port and stops everything on SIGTERM',
  async (t) => {
    const { port, gateway, cleanUp } = await startRunGateway();
    try {
      await waitForStatus(`http://127.0.0.1:${port}/_gateway/health`, 200, 90_000, gateway);
      const discovery = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`);
      t.is(discovery.status, 200);
      t.is(
        ((await discovery.json()) as { issuer: string }).issuer.startsWith(`http://127.0.0.1:${port}`),
        true,
      );
      t.is((await fetch(`http://127.0.0.1:${port}/v2/openapi.json`)).status, 200);
      t.is((await fetch(`http://127.0.0.1:${port}/health/ready`)).status, 404);
    } finally {
      gateway.process.kill('SIGTERM');
    }
    t.is(await exitOf(gateway), 0, gateway.output());
    t.regex(gateway.output(), /run-gateway: http:\/\/127\.0\.0\.1:\d+ -> auth \d+; api \d+/);
    await t.throwsAsync(() => fetch(`http://127.0.0.1:${port}/_gateway/health`));
    await cleanUp();
  },
);

// nginx answers its health check before startGateway returns; a SIGTERM that early (or during
// the migration) once killed the runner outright and left its children running.
withServers(
  'run-gateway: a SIGTERM while it is starting stops everything once started, exit 0',
  async (t) => {
    const { port, gateway, cleanUp } = await startRunGateway();
    // Its first child (the migration) starts after the handlers are in place: signal then.
    const pid = gateway.process.pid!;
    while (childPids(pid).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    gateway.process.kill('SIGTERM');
    t.is(await exitOf(gateway), 0, gateway.output());
    t.regex(gateway.output(), /run-gateway: stopping/);
    await t.throwsAsync(() => fetch(`http://127.0.0.1:${port}/_gateway/health`));
    await cleanUp();
  },
);
