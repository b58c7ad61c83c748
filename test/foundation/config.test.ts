import { resolve } from 'node:path';
import { ConfigError, loadConfig, requireStandaloneServers } from '@sched/kit/config';
import test from 'ava';

test('defaults give the embedded system on localhost:3000', (t) => {
  const config = loadConfig({});
  t.is(config.port, 3000);
  t.is(config.appUrl, 'http://localhost:3000');
  t.is(config.baseUrl, 'http://localhost:3000');
  t.is(config.databaseUrl, undefined);
  t.is(config.redisUrl, undefined);
  t.true(config.dataDir.endsWith('.data'));
});

test('BASE_URL defaults to APP_URL and trailing slashes are dropped', (t) => {
  const config = loadConfig({ APP_URL: 'https://id.example.com/' });
  t.is(config.appUrl, 'https://id.example.com');
  t.is(config.baseUrl, 'https://id.example.com');
});

test('APP_URL and BASE_URL: origins, with or without trailing slashes', (t) => {
  const config = loadConfig({ APP_URL: 'https://id.example.com:8443//', BASE_URL: 'http://127.0.0.1:3000' });
  t.is(config.appUrl, 'https://id.example.com:8443');
  t.is(config.baseUrl, 'http://127.0.0.1:3000');
});

test('MAIL_FROM: an address, with a display name or without', (t) => {
  t.is(loadConfig({}).mailFrom, 'Scheduling <no-reply@localhost>');
  for (const value of [
    'no-reply@example.com',
    '"Acme, Inc." <no-reply@acme.example>',
    'Ünïcode <x@y.example>',
  ])
    t.is(loadConfig({ MAIL_FROM: value }).mailFrom, value);
});

test('PORT 0 without APP_URL (or BASE_URL) is refused, naming both: the issuer and links would say :0', (t) => {
  const error = t.throws(() => loadConfig({ PORT: '0' }), { instanceOf: ConfigError });
  t.is(
    error!.message,
    'Invalid configuration: PORT 0 (any free port) needs APP_URL, the address the server names in its issuer and links',
  );
  t.is(loadConfig({ PORT: '0', APP_URL: 'https://auth.example.com' }).appUrl, 'https://auth.example.com');
  t.is(loadConfig({ PORT: '0', BASE_URL: 'https://api.example.com' }).appUrl, 'https://api.example.com');
});

test('an invalid PORT says what a port is', (t) => {
  const error = t.throws(() => loadConfig({ PORT: 'eighty' }), { instanceOf: ConfigError });
  t.is(error!.message, 'Invalid configuration: PORT must be a port number from 0 to 65535');
});

test('empty variables count as unset', (t) => {
  t.is(loadConfig({ DATABASE_URL: '', PORT: '' }).port, 3000);
});

test('DATA_DIR: ./.data when unset; set to nothing (empty or spaces) is refused, not read as unset', (t) => {
  t.is(loadConfig({}).dataDir, resolve('./.data'));
  t.is(loadConfig({ DATA_DIR: '/srv/sched data' }).dataDir, '/srv/sched data');
  for (const value of ['', '   ']) {
    const error = t.throws(() => loadConfig({ DATA_DIR: value }), { instanceOf: ConfigError });
    t.is(
      error!.message,
      'Invalid configuration: DATA_DIR is empty or only spaces: name the data folder, or leave it unset for ./.data',
    );
  }
});

const invalid: Array<[string, Record<string, string>]> = [
  ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
  ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
  ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
  ['PORT', { PORT: 'eighty' }],
  ['PORT', { PORT: '70000' }],
  ['APP_URL', { APP_URL: 'ftp://example.com' }],
  ['APP_URL', { APP_URL: 'https://id.example.com/auth' }],
  ['APP_URL', { APP_URL: 'http://localhost:3000?x=1' }],
  ['APP_URL', { APP_URL: 'http://localhost:3000/#top' }],
  ['APP_URL', { APP_URL: 'https://user:pw@id.example.com' }],
  ['BASE_URL', { BASE_URL: 'https://api.example.com/v2' }],
  ['PORT', { PORT: '3.5' }],
  ['MAIL_FROM', { MAIL_FROM: 'Scheduling' }],
  ['MAIL_FROM', { MAIL_FROM: 'Scheduling <no-reply>' }],
  ['MAIL_FROM', { MAIL_FROM: 'Scheduling <a@example.com>\r\nBcc: x@example.com' }],
  ['HOST', { HOST: '  ' }],
  // A data folder is where the database lives: an empty one would not fall back to ./.data.
  ['DATA_DIR', { DATA_DIR: '   ' }],
  ['DATA_DIR', { DATA_DIR: '' }],
  ['DATA_DIR', { DATA_DIR: ' \t' }],
  ['SMTP_URL', { SMTP_URL: 'localhost:25' }],
  ['SMTP_URL', { SMTP_URL: 'smtp://' }],
  ['COOKIE_KEYS', { COOKIE_KEYS: 'short' }],
  ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ['ADMIN_EMAIL', { ADMIN_EMAIL: 'nobody', ADMIN_PASSWORD: 'long-enough-password' }],
  ['ADMIN_PASSWORD', { ADMIN_EMAIL: 'admin@example.com' }],
  ['NODE_ENV', { NODE_ENV: 'staging' }],
  ['REFRESH_REUSE_INTERVAL', { REFRESH_REUSE_INTERVAL: '-1' }],
  ['REFRESH_REUSE_INTERVAL', { REFRESH_REUSE_INTERVAL: '301' }],
  ['REFRESH_REUSE_INTERVAL', { REFRESH_REUSE_INTERVAL: '2.5' }],
  ['REFRESH_REUSE_INTERVAL', { REFRESH_REUSE_INTERVAL: 'ten' }],
  ['AGENT_CLIENTS', { AGENT_CLIENTS: 'open' }],
  ['AGENT_PENDING_SCOPES', { AGENT_PENDING_SCOPES: 'PROFILE_READ; DROP' }],
  ['AGENT_TRUSTED_HOSTS', { AGENT_TRUSTED_HOSTS: 'https://agent.example.com' }],
  ['DCR_ENABLED', { DCR_ENABLED: 'yes' }],
  // Decimal digits only: Number() would read these as 80, 1000 and 80.
  ['PORT', { PORT: '0x50' }],
  ['PORT', { PORT: '1e3' }],
  ['PORT', { PORT: '+80' }],
  ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: 'soon' }],
  ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '1e4' }],
  ['ACCESS_TOKEN_TTL', { ACCESS_TOKEN_TTL: '0x708' }],
  ['TRUST_PROXY', { TRUST_PROXY: 'yes' }],
];

test('agent clients: review with the four read scopes, no trusted host and no registration by default', (t) => {
  t.deepEqual(loadConfig({}).agents, {
    policy: 'review',
    pendingScopes: ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ'],
    trustedHosts: [],
    dynamicRegistration: false,
  });
  const set = loadConfig({
    AGENT_CLIENTS: 'approved-only',
    AGENT_PENDING_SCOPES: 'PROFILE_READ,BOOKING_READ',
    AGENT_TRUSTED_HOSTS: 'Agents.Example.com, localhost',
    DCR_ENABLED: 'true',
  }).agents;
  t.deepEqual(set, {
    policy: 'approved-only',
    pendingScopes: ['PROFILE_READ', 'BOOKING_READ'],
    trustedHosts: ['agents.example.com', 'localhost'],
    dynamicRegistration: true,
  });
});

test('REFRESH_REUSE_INTERVAL: 10 seconds by default, 0 turns the retry window off', (t) => {
  t.is(loadConfig({}).refreshReuseInterval, 10);
  t.is(loadConfig({ REFRESH_REUSE_INTERVAL: '0' }).refreshReuseInterval, 0);
  t.is(loadConfig({ REFRESH_REUSE_INTERVAL: '300' }).refreshReuseInterval, 300);
});

for (const [variable, env] of invalid) {
  test(`an invalid ${variable} is named in one line (${JSON.stringify(env)})`, (t) => {
    const error = t.throws(() => loadConfig(env), { instanceOf: ConfigError });
    t.true(error!.message.includes(variable), error!.message);
    t.false(error!.message.includes('\n'));
    // What the variable takes, in the operator's words, not the schema library's.
    t.notRegex(error!.message, /Invalid (input|option)|expected /, error!.message);
  });
}

test('numbers are decimal digits; surrounding spaces are dropped', (t) => {
  const config = loadConfig({ PORT: ' 8080 ', SHUTDOWN_TIMEOUT_MS: '0', ACCESS_TOKEN_TTL: '60' });
  t.is(config.port, 8080);
  t.is(config.shutdownTimeoutMs, 0);
  t.is(config.tokenTtl.accessToken, 60);
  t.is(loadConfig({}).shutdownTimeoutMs, 10_000);
});

test('a standalone service requires DATABASE_URL, REDIS_URL, COOKIE_KEYS and ENCRYPTION_KEY', (t) => {
  const base = {
    DATABASE_URL: 'postgres://db/x',
    REDIS_URL: 'redis://cache:6379',
    COOKIE_KEYS: 'k'.repeat(32),
    ENCRYPTION_KEY: 'e'.repeat(32),
  };
  t.notThrows(() => requireStandaloneServers(loadConfig(base)));
  for (const missing of Object.keys(base)) {
    const env: Record<string, string> = { ...base };
    delete env[missing];
    const error = t.throws(() => requireStandaloneServers(loadConfig(env)), { instanceOf: ConfigError });
    t.true(error!.message.includes(missing));
  }
});

test('calendar providers: offered with client id and secret (one alone stops start-up); endpoints default to the public ones and take the documented names', (t) => {
  t.deepEqual(loadConfig({}).calendarProviders, { google: undefined, microsoft: undefined });
  t.throws(() => loadConfig({ MICROSOFT_CLIENT_ID: 'ms-id' }), {
    instanceOf: ConfigError,
    message: /MICROSOFT_CLIENT_SECRET must be set together/,
  });
  t.deepEqual(
    loadConfig({ MICROSOFT_CLIENT_ID: 'ms-id', MICROSOFT_CLIENT_SECRET: 'ms-secret' }).calendarProviders
      .microsoft,
    {
      clientId: 'ms-id',
      clientSecret: 'ms-secret',
      authorityUrl: 'https://login.microsoftonline.com/common',
      graphUrl: 'https://graph.microsoft.com/v1.0',
    },
  );
  const sovereign = loadConfig({
    MICROSOFT_CLIENT_ID: 'ms-id',
    MICROSOFT_CLIENT_SECRET: 'ms-secret',
    MICROSOFT_AUTHORITY_URL: 'https://login.microsoftonline.us/tenant/',
    MICROSOFT_GRAPH_URL: 'https://graph.microsoft.us/v1.0',
    GOOGLE_CLIENT_ID: 'g-id',
    GOOGLE_CLIENT_SECRET: 'g-secret',
    GOOGLE_AUTH_URL: 'https://google.proxy.example/auth',
    GOOGLE_TOKEN_URL: 'https://google.proxy.example/token',
    GOOGLE_CALENDAR_API_URL: 'https://google.proxy.example/calendar/v3',
    GOOGLE_REVOKE_URL: 'https://google.proxy.example/revoke',
  }).calendarProviders;
  t.deepEqual(sovereign.microsoft, {
    clientId: 'ms-id',
    clientSecret: 'ms-secret',
    authorityUrl: 'https://login.microsoftonline.us/tenant',
    graphUrl: 'https://graph.microsoft.us/v1.0',
  });
  t.deepEqual(sovereign.google, {
    clientId: 'g-id',
    clientSecret: 'g-secret',
    authUrl: 'https://google.proxy.example/auth',
    tokenUrl: 'https://google.proxy.example/token',
    calendarApiUrl: 'https://google.proxy.example/calendar/v3',
    revokeUrl: 'https://google.proxy.example/revoke',
  });
  t.throws(() => loadConfig({ MICROSOFT_GRAPH_URL: 'ftp://graph.example' }), {
    instanceOf: ConfigError,
    message: /MICROSOFT_GRAPH_URL/,
  });
});
