import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '@sched/kit/config';
import { SERVICE_NODE_FLAGS } from '@sched/kit/node-flags';

// Static checks of the deployment files (no Docker engine needed): docker-compose.yml, the
// Dockerfile, .dockerignore and the gateway's deploy/nginx.conf must agree with each other, with
// the repository and with the configuration and gateway prefixes the README documents.

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Variables of README "Configuration" every deployment sets: the config module must read each of them. */
const CONTRACT_VARIABLES = [
  'DATABASE_URL',
  'REDIS_URL',
  'APP_URL',
  'BASE_URL',
  'PORT',
  'SMTP_URL',
  'MAIL_FROM',
  'COOKIE_KEYS',
  'LOG_LEVEL',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
  'DATA_DIR',
] as const;
/** What the application reads (shared/kit/src/config.ts); compose passes nothing else to it. */
const KNOWN_VARIABLES: ReadonlySet<string> = new Set(CONFIG_VARIABLES);

/**
 * Settings an operator of the compose stack may need, passed through from the shell or .env
 * (unset there: the application's default). HOST, NODE_ENV and DATA_DIR are fixed by the images;
 * PORT, TRUST_PROXY, DATABASE_URL and REDIS_URL by the compose file.
 */
const PASSED_THROUGH = [
  'SMTP_URL',
  'MAIL_FROM',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
  'SIGNUP_ENABLED',
  'KEY_ENCRYPTION_KEY',
  'ID_TOKEN_SIGNING_ALG',
  'RATE_LIMITS',
  'ACCESS_TOKEN_TTL',
  'REFRESH_TOKEN_TTL',
  'REFRESH_REUSE_INTERVAL',
  'ACCESS_LOG',
  'METRICS_TOKEN',
  'METRICS_ENABLED',
  'SHUTDOWN_TIMEOUT_MS',
  'AGENT_CLIENTS',
  'AGENT_PENDING_SCOPES',
  'AGENT_TRUSTED_HOSTS',
  'DCR_ENABLED',
  'OUTBOUND_PRIVATE_NETWORKS',
] as const;

/** Secrets that must never get a default in the compose file. */
const SECRETS = [
  'COOKIE_KEYS',
  'POSTGRES_PASSWORD',
  'REDIS_PASSWORD',
  'ADMIN_PASSWORD',
  'KEY_ENCRYPTION_KEY',
  'ENCRYPTION_KEY',
  'METRICS_TOKEN',
];

const ENTRY_FILES = [
  'services/auth/src/main.ts',
  'services/api/src/main.ts',
  'services/launcher/src/cli.ts',
  'services/launcher/src/start.ts',
];

/** Path prefixes of the gateway and the service each goes to (README "Architecture"). */
const ROUTES: Record<string, 'auth' | 'api'> = {
  '/': 'auth',
  '/auth/': 'auth',
  '/.well-known/': 'auth',
  '/v2/auth/oauth2/': 'auth',
  '/v2/': 'api',
  // The MCP server: one exact path.
  '/mcp': 'api',
};

const APP_SERVICES = ['migrate', 'auth', 'api'] as const;
const SCALABLE = ['auth', 'api'] as const;

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

interface Healthcheck {
  test?: string | string[];
  disable?: boolean;
}
interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; target?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: unknown[];
  container_name?: string;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: Healthcheck;
  restart?: string;
  profiles?: string[];
  volumes?: Array<string | { source?: string; target?: string }>;
  networks?: string[] | Record<string, unknown>;
}
interface Compose {
  services: Record<string, Service>;
}

const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as Compose;
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service '${name}'`);
  return found;
}

function environmentOf(svc: Service): Map<string, string | null> {
  const env = new Map<string, string | null>();
  if (Array.isArray(svc.environment)) {
    for (const entry of svc.environment) {
      const at = entry.indexOf('=');
      env.set(at === -1 ? entry : entry.slice(0, at), at === -1 ? null : entry.slice(at + 1));
    }
  } else {
    for (const [key, value] of Object.entries(svc.environment ?? {})) {
      env.set(key, value === null ? null : String(value));
    }
  }
  return env;
}

function dependsOn(svc: Service): Record<string, string | undefined> {
  if (Array.isArray(svc.depends_on))
    return Object.fromEntries(svc.depends_on.map((name) => [name, undefined]));
  return Object.fromEntries(Object.entries(svc.depends_on ?? {}).map(([name, dep]) => [name, dep.condition]));
}

const networksOf = (svc: Service): string[] =>
  Array.isArray(svc.networks) ? svc.networks : svc.networks ? Object.keys(svc.networks) : ['default'];

const isLongRunning = (name: string) => name !== 'migrate';
const inDefaultProfile = (svc: Service) => !svc.profiles || svc.profiles.length === 0;

// ---------------------------------------------------------------------------------------------
// Dockerfile

const dockerfile = read('Dockerfile');
/** Logical lines: continuation backslashes joined, comments dropped (heredoc bodies are kept as is). */
const dockerLines = dockerfile
  .replace(/\\\r?\n/g, ' ')
  .split(/\r?\n/)
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

interface Stage {
  from: string;
  name: string | undefined;
  lines: string[];
}
const stages: Stage[] = [];
for (const line of dockerLines) {
  const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$/i.exec(line);
  if (from) stages.push({ from: from[1]!, name: from[2]?.toLowerCase(), lines: [] });
  else stages.at(-1)?.lines.push(line);
}
const targets = new Set(stages.flatMap((stage) => (stage.name ? [stage.name] : [])));

/** Instructions of a target including those inherited from the stages it is built FROM. */
function stageChain(name: string): Stage[] {
  const chain: Stage[] = [];
  let current = stages.find((stage) => stage.name === name);
  while (current) {
    chain.unshift(current);
    const parent = current.from.toLowerCase();
    current = stages.find((stage) => stage.name === parent);
  }
  return chain;
}

function lastInstruction(name: string, instruction: string): string | undefined {
  const pattern = new RegExp(`^${instruction}\\s+`, 'i');
  const lines = stageChain(name).flatMap((stage) => stage.lines);
  return lines.filter((line) => pattern.test(line)).at(-1);
}

function execForm(line: string | undefined): string[] {
  if (!line) return [];
  const json = line.slice(line.indexOf('['));
  return JSON.parse(json) as string[];
}

const argDefaults = new Map<string, string>();
for (const line of dockerLines) {
  const arg = /^ARG\s+(\w+)=(\S+)/i.exec(line);
  if (arg) argDefaults.set(arg[1]!, arg[2]!);
}
const expandArgs = (value: string) =>
  value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => argDefaults.get(a ?? b) ?? '');

/** Repository path of a file the image runs (WORKDIR is /app, the repository root). */
function repoPath(arg: string): string | undefined {
  if (!/\.(ts|mjs|js)$/.test(arg)) return undefined;
  return arg.startsWith('/app/') ? arg.slice('/app/'.length) : arg.startsWith('/') ? undefined : arg;
}

// ---------------------------------------------------------------------------------------------
// nginx.conf: a small parser for directives, quoted strings, comments and blocks.

interface Directive {
  name: string;
  args: string[];
  block: Directive[] | undefined;
}

function parseNginx(text: string): Directive[] {
  type Token = { value: string; punct: boolean };
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
    else if (c === '{' || c === '}' || c === ';') {
      tokens.push({ value: c, punct: true });
      i++;
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      i++;
      tokens.push({ value, punct: false });
    } else {
      let value = '';
      while (i < text.length && !/[\s;{}]/.test(text[i]!)) value += text[i++];
      tokens.push({ value, punct: false });
    }
  }
  let at = 0;
  const block = (): Directive[] => {
    const directives: Directive[] = [];
    while (at < tokens.length) {
      const token = tokens[at]!;
      if (token.punct && token.value === '}') {
        at++;
        return directives;
      }
      if (token.punct) throw new Error(`nginx.conf: unexpected '${token.value}'`);
      const words: string[] = [];
      while (at < tokens.length && !tokens[at]!.punct) words.push(tokens[at++]!.value);
      const end = tokens[at++];
      if (!end) throw new Error(`nginx.conf: '${words.join(' ')}' is not terminated`);
      const [name, ...args] = words;
      directives.push({ name: name!, args, block: end.value === '{' ? block() : undefined });
    }
    return directives;
  };
  return block();
}

const nginxText = read('deploy/nginx.conf');
const nginx = parseNginx(nginxText);
const children = (directives: Directive[] | undefined, name: string) =>
  (directives ?? []).filter((directive) => directive.name === name);
const http = children(nginx, 'http')[0];
const servers = children(http?.block, 'server');
const upstreams = new Map(
  children(http?.block, 'upstream').map((upstream) => [
    upstream.args[0]!,
    children(upstream.block, 'server'),
  ]),
);

interface Location {
  modifier: '' | '=' | '^~';
  path: string;
  proxyPass: string | undefined;
  block: Directive[];
}
const locations: Location[] = servers.flatMap((server) =>
  children(server.block, 'location').map((location) => {
    const [first, second] = location.args;
    if (first === '~' || first === '~*')
      throw new Error('nginx.conf: regex locations make routing order-dependent');
    const modifier = first === '=' || first === '^~' ? first : '';
    return {
      modifier,
      path: (modifier ? second : first)!,
      proxyPass: children(location.block, 'proxy_pass')[0]?.args[0],
      block: location.block ?? [],
    };
  }),
);

/** nginx's choice for a URI among prefix and exact locations: exact match, else longest prefix. */
function route(uri: string): Location | undefined {
  const exact = locations.find((location) => location.modifier === '=' && location.path === uri);
  if (exact) return exact;
  return locations
    .filter((location) => location.modifier !== '=' && uri.startsWith(location.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

/** The compose service behind a proxy_pass target, with the port it is reached on. */
function upstreamService(proxyPass: string | undefined): { name: string; port: string }[] {
  if (!proxyPass) return [];
  const target = /^https?:\/\/([^/:$]+)(?::(\d+))?\/?$/.exec(proxyPass);
  if (!target) throw new Error(`nginx.conf: unsupported proxy_pass ${proxyPass}`);
  const group = upstreams.get(target[1]!);
  if (!group) return [{ name: target[1]!, port: target[2] ?? '80' }];
  return group.map((server) => {
    const [host, port] = server.args[0]!.split(':');
    return { name: host!, port: port ?? '80' };
  });
}

function sizeInBytes(value: string): number {
  const match = /^(\d+)([kKmMgG]?)$/.exec(value);
  if (!match) throw new Error(`nginx.conf: unreadable size ${value}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[
    match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'
  ];
  return Number(match[1]) * unit;
}

// ---------------------------------------------------------------------------------------------

test('compose declares the stack: postgres, redis, migrate, auth, api, gateway (+ mailpit behind a profile)', (t) => {
  for (const name of ['postgres', 'redis', 'migrate', 'auth', 'api', 'gateway', 'mailpit']) {
    t.truthy(services[name], `service ${name}`);
  }
  t.deepEqual(service('mailpit').profiles, ['mail']);
  t.regex(service('postgres').image ?? '', /^postgres:(1[6-9]|[2-9]\d)\b/);
  t.regex(service('redis').image ?? '', /^redis:7\b/);
  t.true(JSON.stringify(service('redis').command).includes('--appendonly'), 'redis persists (appendonly)');
  t.regex(service('gateway').image ?? '', /^nginx:/);
  for (const name of ['postgres', 'redis']) {
    t.true((service(name).volumes ?? []).length > 0, `${name} keeps its data in a volume`);
  }
});

test('auth, api and migrate build Dockerfile targets that exist', (t) => {
  for (const required of ['auth', 'api', 'migrate', 'tools', 'all-in-one'])
    t.true(targets.has(required), required);
  for (const name of APP_SERVICES) {
    const build = service(name).build;
    t.true(typeof build === 'object' && build !== null, `${name} has a build section`);
    if (typeof build !== 'object') continue;
    t.is(build.context ?? '.', '.', name);
    t.is(build.dockerfile ?? 'Dockerfile', 'Dockerfile', name);
    t.true(targets.has(build.target ?? ''), `${name} builds target '${build.target}'`);
    t.is(build.target, name);
  }
});

test('the Dockerfile: node:24-bookworm-slim, production dependencies only, non-root, health check', (t) => {
  t.is(expandArgs(stages[0]!.from), 'node:24-bookworm-slim');
  t.true(
    dockerLines.some((line) => /\bnpm ci\b/.test(line) && /--omit=dev\b/.test(line)),
    'npm ci --omit=dev',
  );
  for (const target of ['auth', 'api', 'migrate', 'tools', 'all-in-one']) {
    const user = lastInstruction(target, 'USER');
    t.truthy(user, `${target} sets USER`);
    t.false(/^USER\s+(root|0)(:|\s*$)/i.test(user ?? ''), `${target} does not run as root`);
  }
  for (const target of ['auth', 'api', 'all-in-one']) {
    const healthcheck = lastInstruction(target, 'HEALTHCHECK');
    t.truthy(healthcheck, `${target} has a HEALTHCHECK`);
    t.true(healthcheck?.includes('/health/ready'), `${target} checks /health/ready`);
    t.false(/\b(curl|wget)\b/.test(healthcheck ?? ''), 'slim images have neither curl nor wget');
  }
  // The services' Node flags, as npm start and the benchmark servers use them.
  const node = ['node', ...SERVICE_NODE_FLAGS];
  t.deepEqual(execForm(lastInstruction('auth', 'CMD')), [...node, 'services/auth/src/main.ts']);
  t.deepEqual(execForm(lastInstruction('api', 'CMD')), [...node, 'services/api/src/main.ts']);
  t.deepEqual(execForm(lastInstruction('all-in-one', 'CMD')), [...node, 'services/launcher/src/start.ts']);
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  // `exec`: npm's SIGTERM must reach the server, not a shell in between.
  // Through the launcher that runs `npm run build`'s compiled entry point when it is up to date.
  t.is(scripts['start'], ['exec', ...node, 'services/launcher/bin/run.mjs', 'start'].join(' '));
  t.deepEqual(execForm(lastInstruction('migrate', 'ENTRYPOINT')), ['node', 'services/launcher/src/cli.ts']);
  t.deepEqual(execForm(lastInstruction('migrate', 'CMD')), ['migrate']);
});

test('auth and api scale: no container_name, no host ports; only the gateway publishes one', (t) => {
  for (const name of SCALABLE) {
    t.is(service(name).container_name, undefined, `${name} has no container_name`);
    t.is(service(name).ports, undefined, `${name} publishes no port`);
  }
  const publishing = Object.entries(services)
    .filter(([, svc]) => inDefaultProfile(svc) && (svc.ports ?? []).length > 0)
    .map(([name]) => name);
  t.deepEqual(publishing, ['gateway']);
  const gatewayPorts = service('gateway').ports ?? [];
  t.is(gatewayPorts.length, 1);
  t.regex(
    String(gatewayPorts[0]),
    /^\$\{GATEWAY_PORT:-8080\}:8080$/,
    'host port GATEWAY_PORT (8080) -> 8080',
  );
  // Development-only services bind to loopback.
  for (const [name, svc] of Object.entries(services)) {
    if (inDefaultProfile(svc)) continue;
    for (const port of svc.ports ?? []) t.regex(String(port), /^127\.0\.0\.1:/, `${name} ${port}`);
  }
});

test('every long-running service has a health check; auth and api probe /health/ready with the shipped probe', (t) => {
  for (const [name, svc] of Object.entries(services)) {
    if (!isLongRunning(name)) continue;
    const check = svc.healthcheck;
    t.truthy(check?.test, `${name} has a healthcheck`);
    t.not(check?.disable, true, name);
    t.false(Array.isArray(check?.test) && check.test[0] === 'NONE', name);
  }
  for (const name of SCALABLE) {
    const probe = service(name).healthcheck?.test;
    t.true(Array.isArray(probe) && probe.includes('/health/ready'), `${name} probes /health/ready`);
    const script = (Array.isArray(probe) ? probe : []).map(repoPath).find(Boolean);
    t.truthy(script, `${name} runs a probe script from the image`);
    t.true(existsSync(join(root, script ?? '-')), `${script} exists`);
  }
});

test('depends_on: postgres and redis healthy, migrate completed successfully, gateway after healthy services', (t) => {
  for (const name of SCALABLE) {
    t.deepEqual(dependsOn(service(name)), {
      postgres: 'service_healthy',
      redis: 'service_healthy',
      migrate: 'service_completed_successfully',
    });
  }
  t.deepEqual(dependsOn(service('migrate')), { postgres: 'service_healthy', redis: 'service_healthy' });
  t.deepEqual(dependsOn(service('gateway')), { auth: 'service_healthy', api: 'service_healthy' });
  for (const [name, svc] of Object.entries(services)) {
    for (const [dependency, condition] of Object.entries(dependsOn(svc))) {
      t.truthy(services[dependency], `${name} depends on an existing service ${dependency}`);
      t.truthy(condition, `${name} -> ${dependency} has a condition`);
      if (condition === 'service_healthy')
        t.truthy(services[dependency]?.healthcheck, `${dependency} has a healthcheck`);
    }
  }
});

test('restart policies: long-running services restart, the migration job does not', (t) => {
  for (const [name, svc] of Object.entries(services)) {
    if (isLongRunning(name))
      t.true(['always', 'unless-stopped', 'on-failure'].includes(svc.restart ?? ''), name);
    else t.true(svc.restart === undefined || svc.restart === 'no', `${name} runs once`);
  }
});

test('the application containers get only variables the config module reads', (t) => {
  for (const variable of CONTRACT_VARIABLES)
    t.true(KNOWN_VARIABLES.has(variable), `config reads ${variable}`);
  const passed = new Set<string>();
  for (const name of APP_SERVICES) {
    const env = environmentOf(service(name));
    for (const required of [
      'DATABASE_URL',
      'REDIS_URL',
      'COOKIE_KEYS',
      'ENCRYPTION_KEY',
      'APP_URL',
      'BASE_URL',
      'PORT',
    ]) {
      t.true(env.has(required), `${name} gets ${required}`);
    }
    t.regex(env.get('DATABASE_URL') ?? '', /^postgres(ql)?:\/\/.*@postgres:5432\//, name);
    t.regex(env.get('REDIS_URL') ?? '', /^redis:\/\/.*@?redis:6379\b/, name);
    for (const variable of PASSED_THROUGH) {
      // No value: compose passes it from the shell or .env when set and leaves it unset otherwise.
      t.true(env.has(variable), `${name} gets ${variable}`);
      t.is(env.get(variable), null, `${name} passes ${variable} through without a default`);
    }
    for (const key of env.keys()) passed.add(key);
  }
  for (const line of dockerLines) {
    const env = /^ENV\s+(\w+)[=\s]/i.exec(line);
    if (env) passed.add(env[1]!);
  }
  for (const name of passed) t.true(KNOWN_VARIABLES.has(name), `${name} is read by shared/kit/src/config.ts`);
});

test('every variable the config module reads reaches auth, api and migrate (HOST keeps its default)', (t) => {
  // deploy/README.md tells operators to put any of them in .env: one compose leaves out is
  // silently ignored there.
  const fromImage = new Set<string>();
  for (const line of dockerLines) {
    const env = /^ENV\s+(\w+)[=\s]/i.exec(line);
    if (env) fromImage.add(env[1]!);
  }
  for (const name of APP_SERVICES) {
    const env = environmentOf(service(name));
    for (const variable of CONFIG_VARIABLES) {
      if (variable === 'HOST') continue;
      t.true(env.has(variable) || fromImage.has(variable), `${name} gets ${variable}`);
    }
  }
});

/** The `NAME`s in the first column of the markdown tables of `text` (a row may list several). */
function tableVariables(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!first) continue;
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1]!);
  }
  return names;
}

test('README.md and deploy/README.md document every variable the config module reads', (t) => {
  for (const doc of ['README.md', 'deploy/README.md']) {
    const documented = tableVariables(read(doc));
    const missing = CONFIG_VARIABLES.filter((variable) => !documented.has(variable));
    t.deepEqual(missing, [], `${doc} has a table row (name, default, meaning) for each`);
  }
});

test('deploy/README.md covers backup and restore of Postgres, Redis and the embedded data folder', (t) => {
  const text = read('deploy/README.md');
  const backup = text.slice(text.indexOf('## Backup and restore'));
  t.true(text.includes('## Backup and restore'));
  t.regex(backup, /### Postgres[\s\S]*pg_dump[\s\S]*pg_restore/);
  t.regex(backup, /### Redis[\s\S]*every\s+session and every token[\s\S]*authorization again/);
  t.regex(backup, /### The embedded data folder[\s\S]*cli -- backup[\s\S]*cli -- restore/);
});

test('secrets have no default: compose refuses to start without them', (t) => {
  for (const secret of SECRETS) {
    for (const match of composeText.matchAll(new RegExp(`\\$\\{${secret}(:?[-?+])?`, 'g'))) {
      t.true(match[1] === ':?' || match[1] === '?', `\${${secret}} is used as ${match[0]}... (needs :?)`);
    }
  }
  t.regex(composeText, /\$\{COOKIE_KEYS:\?/);
  t.regex(composeText, /\$\{POSTGRES_PASSWORD:\?/);
});

test('every file the images and compose run exists in the repository and is copied into the image', (t) => {
  const run = new Set<string>();
  for (const line of dockerLines) {
    if (!/^(CMD|ENTRYPOINT|HEALTHCHECK)\s/i.test(line) || !line.includes('[')) continue;
    for (const arg of execForm(line)) {
      const path = repoPath(arg);
      if (path) run.add(path);
    }
  }
  for (const svc of Object.values(services)) {
    const args = [svc.command, svc.entrypoint, svc.healthcheck?.test].flatMap((value) =>
      Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\s+/) : [],
    );
    for (const arg of args) {
      const path = repoPath(arg);
      if (path) run.add(path);
    }
  }
  for (const entry of ENTRY_FILES) t.true(run.has(entry), `${entry} is run`);
  const admitted = dockerignoreAllows();
  for (const path of run) {
    t.true(existsSync(join(root, path)), `${path} exists`);
    t.true(admitted(path), `${path} is in the build context (.dockerignore)`);
  }
});

/** .dockerignore is an allow-list: '*' then '!path' exceptions, then exclusions inside them. */
function dockerignoreAllows(): (path: string) => boolean {
  const lines = read('.dockerignore')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const allowed = lines
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1).replace(/\/$/, ''));
  return (path) =>
    lines.includes('*') &&
    allowed.some((entry) => path === entry || path.startsWith(`${entry}/`)) &&
    !path.split('/').includes('node_modules');
}

test('.dockerignore admits every workspace and the lock file, and keeps node_modules, .env and .data out', (t) => {
  const admitted = dockerignoreAllows();
  const rootPackage = JSON.parse(read('package.json')) as { workspaces?: string[] };
  for (const file of ['package.json', 'package-lock.json']) t.true(admitted(file), file);
  for (const pattern of rootPackage.workspaces ?? []) {
    const top = pattern.split('/')[0]!;
    t.false(top.includes('*'), `workspace ${pattern} starts with a fixed folder`);
    t.true(admitted(`${top}/package.json`), `workspace ${pattern} is in the build context`);
  }
  const ignore = read('.dockerignore');
  for (const excluded of ['**/node_modules', '**/.env', '**/.data'])
    t.true(ignore.includes(excluded), excluded);
});

test('the gateway routes exactly the documented prefixes, to the right services', (t) => {
  const proxied = Object.fromEntries(
    locations
      .filter((location) => location.proxyPass)
      .map((location) => {
        const targets = upstreamService(location.proxyPass).map((target) => target.name);
        return [location.path, targets.length === 1 ? targets[0] : targets.join(',')];
      }),
  );
  t.deepEqual(proxied, ROUTES);
  for (const location of locations) {
    // Every proxied location is a prefix, except the landing page `/` and the MCP endpoint.
    if (location.proxyPass && location.path !== '/' && location.path !== '/mcp')
      t.not(location.modifier, '=', `${location.path} is a prefix, not an exact match`);
  }

  const cases: Array<[string, 'auth' | 'api' | undefined]> = [
    ['/auth/oauth2/authorize?client_id=x', 'auth'],
    ['/auth/sign-in', 'auth'],
    ['/.well-known/oauth-authorization-server', 'auth'],
    ['/v2/auth/oauth2/token', 'auth'],
    ['/v2/auth/oauth2/revoke', 'auth'],
    ['/v2/me', 'api'],
    ['/v2/openapi.json', 'api'],
    ['/v2/docs', 'api'],
    ['/v2/auth/other', 'api'],
    ['/v2/oauth-clients/abc/secrets', 'api'],
    ['/health/ready', undefined],
    ['/health/alive', undefined],
    ['/metrics', undefined],
    ['/', 'auth'],
    ['/mcp', 'api'],
    ['/mcpx', undefined],
    ['/.well-known/oauth-protected-resource/mcp', 'auth'],
    ['/authx', undefined],
  ];
  for (const [uri, expected] of cases) {
    const chosen = route(uri.split('?')[0]!);
    const names = upstreamService(chosen?.proxyPass).map((target) => target.name);
    t.deepEqual(names, expected ? [expected] : [], uri);
  }
});

test('gateway upstreams are the compose services on their PORT, re-resolved by Docker DNS', (t) => {
  const resolver = children(http?.block, 'resolver')[0];
  t.is(resolver?.args[0], '127.0.0.11', "Docker's embedded DNS");
  const gatewayNetworks = networksOf(service('gateway'));
  for (const name of new Set(Object.values(ROUTES))) {
    const group = upstreams.get(name);
    t.truthy(group, `upstream ${name}`);
    for (const server of group ?? []) {
      const [host, port] = server.args[0]!.split(':');
      t.truthy(services[host!], `${host} is a compose service`);
      t.is(port, environmentOf(service(host!)).get('PORT') ?? undefined, `${host} listens on ${port}`);
      t.true(server.args.includes('resolve'), `${host} is re-resolved, so every replica is used`);
      t.true(
        networksOf(service(host!)).some((network) => gatewayNetworks.includes(network)),
        `gateway shares a network with ${host}`,
      );
    }
  }
  const listen = servers.flatMap((server) => children(server.block, 'listen')).map((d) => d.args[0]);
  t.true(listen.includes('8080'), 'the gateway listens on 8080 (the published container port)');
  t.true(
    (service('gateway').volumes ?? []).some((volume) => String(volume).startsWith('./deploy/nginx.conf:')),
    'the gateway mounts deploy/nginx.conf',
  );
});

test('the gateway forwards client headers and request ids, and admits at least the 1 MiB the API accepts', (t) => {
  const headers = new Set(
    servers
      .flatMap((server) => [
        ...children(server.block, 'proxy_set_header'),
        ...locations.flatMap((location) => children(location.block, 'proxy_set_header')),
      ])
      .map((directive) => directive.args[0]!.toLowerCase()),
  );
  for (const header of ['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-request-id']) {
    t.true(headers.has(header), header);
  }
  const bodySize = children(http?.block, 'client_max_body_size')[0]?.args[0];
  t.truthy(bodySize);
  t.true(sizeInBytes(bodySize ?? '0') >= 1024 ** 2, 'the API, not the gateway, answers 413 at 1 MiB');
  for (const timeout of ['proxy_connect_timeout', 'proxy_read_timeout', 'proxy_send_timeout']) {
    t.truthy(
      servers.some((server) => children(server.block, timeout).length > 0),
      timeout,
    );
  }
  t.truthy(
    locations.find((location) => location.modifier === '=' && location.path === '/_gateway/health'),
    'the gateway answers its own health check',
  );
  t.true(JSON.stringify(service('gateway').healthcheck?.test).includes('/_gateway/health'));
});
