import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { keyEncryptionSecrets } from '@sched/auth/keys/signing-keys';
import { missingMigrations } from '@sched/db/migrate';
import { openStores } from '@sched/db/stores';
import { failStartup } from '@sched/kit/boot';
import { type Config, loadConfig, longestTokenLifetime } from '@sched/kit/config';
import { createLogger } from '@sched/kit/logger';
import { APP_VERSION } from '@sched/kit/version';
import { openRuntime } from '@sched/runtime/runtime';
import { restoreEmbedded } from './backup.ts';
import {
  type CommandContext,
  CommandInputError,
  type CommandName,
  commands,
  type ListedClient,
} from './commands.ts';
import { sendControlCommand } from './control-socket.ts';
import {
  describeHolder,
  loadOrCreateCookieKeys,
  lockDataDir,
  readCookieKeys,
  readLockHolder,
} from './data-dir.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

interface CommandHelp {
  /** Synopsis after the command's name. */
  args: string;
  summary: string;
  /** Further lines of its --help. */
  details: string[];
  options: Options;
}

const HELP = {
  migrate: {
    args: '',
    summary: 'apply pending migrations (npm start does it too)',
    details: [
      'With ADMIN_EMAIL and ADMIN_PASSWORD set, also creates that service administrator if missing. An',
      'account of that address with another password is left as it is: a warning, still exit 0.',
    ],
    options: {},
  },
  'create-admin': {
    args: '--email E --password P [--name N]',
    summary: 'create a service administrator (or print a fresh API key for it)',
    details: [
      'Prints {"userId":<number>,"apiKey":"svc_..."}. Idempotent on the e-mail; an existing account',
      'with another password is refused (reset-password first).',
    ],
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
  },
  'reset-password': {
    args: '--email E',
    summary: 'print a one-time password-reset URL (30 minutes)',
    details: ['Older links of the account stop working.'],
    options: { email: { type: 'string' } },
  },
  'create-client': {
    args: '--name N --redirect-uri URI... --scope S... [--public] [--approve] [--owner E]',
    summary: 'register an OAuth client; prints its id (and secret)',
    details: [
      'Repeat --redirect-uri and --scope (or separate scopes with commas or spaces). Confidential by',
      'default (the secret is printed once); --public for a client without secret (PKCE).',
      '--approve approves it at once (otherwise it waits in review as PENDING). Owned by --owner, by',
      'default the oldest service administrator. Prints one line of JSON: {"id":...,"secret":...}.',
    ],
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      public: { type: 'boolean' },
      approve: { type: 'boolean' },
      owner: { type: 'string' },
    },
  },
  'list-clients': {
    args: '[--status PENDING|APPROVED|REJECTED] [--table]',
    summary: 'list OAuth clients (one JSON line each, or a table)',
    details: ['Oldest first.'],
    options: { status: { type: 'string' }, table: { type: 'boolean' } },
  },
  'approve-client': {
    args: '--id CLIENT_ID',
    summary: 'approve a PENDING client (its owner is e-mailed)',
    details: [],
    options: { id: { type: 'string' } },
  },
  'disable-user': {
    args: '--email E',
    summary: 'disable an account: no sign-in; its sessions, tokens and API keys end at once',
    details: ['enable-user lets it sign in again; what was ended stays ended.'],
    options: { email: { type: 'string' } },
  },
  'enable-user': {
    args: '--email E',
    summary: 'enable a disabled account again',
    details: [],
    options: { email: { type: 'string' } },
  },
  'rotate-keys': {
    args: '',
    summary: 'new ID-token signing key; the old one retires after its tokens expire',
    details: [],
    options: {},
  },
  'mail-failures': {
    args: '',
    summary: 'e-mails the outbox gave up on (JSON)',
    details: [],
    options: {},
  },
  backup: {
    args: '--to FILE',
    summary: 'back up the embedded database (works while the server runs)',
    details: [
      "The file holds the data folder's database and its generated cookie keys (secrets: mode 0600).",
      'With DATABASE_URL use pg_dump instead (deploy/README.md).',
    ],
    options: { to: { type: 'string' } },
  },
  restore: {
    args: '--from FILE [--force]',
    summary: 'restore a backup into DATA_DIR (the server must be stopped)',
    details: [
      'Refused while a server holds the data folder, and into a data folder that has a database',
      'unless --force (which replaces it).',
    ],
    options: { from: { type: 'string' }, force: { type: 'boolean' } },
  },
} satisfies Record<CommandName | 'restore', CommandHelp>;

type CliCommand = keyof typeof HELP;
const isCliCommand = (name: string): name is CliCommand => Object.hasOwn(HELP, name);

const USAGE = `usage: npm run cli -- <command> [options]   (npm run cli -- <command> --help for one)
${Object.entries(HELP)
  .map(([name, help]) => {
    const synopsis = `${name} ${help.args}`;
    return synopsis.length < 50
      ? `  ${synopsis.padEnd(50)} ${help.summary}`
      : `  ${synopsis}\n  ${''.padEnd(50)} ${help.summary}`;
  })
  .join('\n')}
  --version                                          print the version`;

function commandHelp(name: CliCommand): string {
  const help: CommandHelp = HELP[name];
  return [
    `usage: npm run cli -- ${name} ${help.args}`.trimEnd(),
    '',
    `  ${help.summary}`,
    ...help.details.map((line) => `  ${line}`),
  ].join('\n');
}

/** `--scope a --scope b,c` and `--scope "a b"` alike. */
const splitList = (values: string[] | undefined): string[] =>
  (values ?? []).flatMap((value) => value.split(/[\s,]+/)).filter((value) => value !== '');

function inputOf(name: CliCommand, values: Record<string, unknown>, config: Config): unknown {
  switch (name) {
    case 'migrate':
      return config.bootstrapAdmin ? { admin: config.bootstrapAdmin } : {};
    case 'reset-password':
      return { ...values, appUrl: config.appUrl };
    case 'create-client': {
      const { 'redirect-uri': redirectUris, scope, ...rest } = values;
      return {
        ...rest,
        redirectUris: (redirectUris as string[] | undefined) ?? [],
        scopes: splitList(scope as string[] | undefined),
      };
    }
    case 'list-clients': {
      const { table: _table, status, ...rest } = values;
      return status === undefined ? rest : { ...rest, status: String(status).toUpperCase() };
    }
    case 'backup':
      // The server may run in another folder: the file is where the operator meant it.
      return typeof values.to === 'string' ? { ...values, to: resolve(values.to) } : values;
    default:
      return values;
  }
}

/** Runs one operator command: on Postgres directly; in embedded mode through the running server if any. */
async function main(argv: string[]): Promise<unknown> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return undefined;
  }
  if (name === '--version' || name === '-v' || name === 'version') return APP_VERSION;
  if (!isCliCommand(name)) {
    // A failure is one line: the names fit on it, the synopses are in `npm run cli`.
    const what = name.startsWith('-') ? 'option' : 'command';
    throw new CommandInputError(
      `unknown ${what} '${name}'; the commands: ${Object.keys(HELP).join(', ')} (npm run cli -- --help)`,
    );
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${commandHelp(name)}\n`);
    return undefined;
  }
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: rest,
      options: HELP[name].options,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new CommandInputError(
      `${error instanceof Error ? error.message.split('\n')[0] : String(error)} (npm run cli -- ${name} --help)`,
    );
  }
  const config = loadConfig();
  if (config.databaseUrl && (name === 'backup' || name === 'restore'))
    throw new CommandInputError(
      `${name} is for the embedded database; with DATABASE_URL use pg_dump and pg_restore (deploy/README.md)`,
    );
  if (name === 'restore') {
    if (typeof values.from !== 'string') throw new CommandInputError('--from FILE is required');
    return restoreEmbedded(config.dataDir, values.from, values.force === true);
  }
  const input = inputOf(name, values, config);

  if (!config.databaseUrl) {
    // A server stopped with Ctrl-Z still accepts connections: the command would wait for it for
    // ever. Its lock socket, answered at once by a live one, tells.
    if ((await readLockHolder(config.dataDir)) === 'unknown')
      throw new CommandInputError(
        `the server holding ${config.dataDir} does not answer (stopped?); resume it and try again`,
      );
    const viaServer = await sendControlCommand(config.dataDir, name, input);
    if (viaServer) {
      if (viaServer.status !== 200)
        throw new CommandInputError(viaServer.body.error ?? `command failed (${viaServer.status})`);
      return viaServer.body.result;
    }
    const holder = await readLockHolder(config.dataDir);
    if (holder !== undefined)
      throw new Error(
        `the server (${describeHolder(holder)}) holds ${config.dataDir} but its control socket does not answer`,
      );
  }
  return runHere(name, input, config);
}

/** Opens the stores itself: Postgres (and Redis) when configured, else the data folder, locked. */
async function runHere(name: CommandName, input: unknown, config: Config): Promise<unknown> {
  const embedded = !config.databaseUrl;
  const release = embedded ? await lockDataDir(config.dataDir) : async () => {};
  try {
    // The server's own: `npm start` keeps generated ones in DATA_DIR, on Postgres too.
    const cookieKeys =
      config.cookieKeys ??
      (embedded
        ? await loadOrCreateCookieKeys(config.dataDir)
        : ((await readCookieKeys(config.dataDir)) ?? []));
    const logger = createLogger({ level: config.logLevel, name: 'cli' }, process.stderr);
    const stores = await openStores({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      pgliteDir: join(config.dataDir, 'pg'),
      longestTokenLifetime: longestTokenLifetime(config.tokenTtl),
    });
    const runtime = await openRuntime({ ...config, cookieKeys }, logger, stores);
    try {
      const { knex } = stores.db;
      // Opened by the CLI itself: bring the embedded schema up to date first, as the server would.
      if (embedded && name !== 'migrate') await commands.migrate(knex, {});
      // On Postgres migrating is the operator's step (the deployment's migrate job): say so, rather
      // than fail on a missing table.
      if (!embedded && name !== 'migrate') {
        const missing = await missingMigrations(knex);
        if (missing.length > 0)
          throw new CommandInputError(
            `the database lacks ${missing.length} migration(s) of this version, from ${missing[0]}: run migrate first`,
          );
      }
      const context: CommandContext = {
        signingKeys: {
          secrets: keyEncryptionSecrets({ keyEncryptionKey: config.keyEncryptionKey, cookieKeys }),
          alg: config.idTokenSigningAlg,
        },
        // Running auth processes (Postgres mode) learn of new keys through the token store's
        // version; with the data folder in our hands no server runs.
        versions: embedded ? undefined : stores.tokenStore,
        runtime,
        dataDir: config.dataDir,
        appUrl: config.appUrl,
      };
      return await commands[name](knex, input, context);
    } finally {
      await runtime.close();
    }
  } finally {
    await release();
  }
}

function table(rows: ListedClient[]): string {
  const columns = ['id', 'name', 'clientType', 'reviewStatus', 'ownerUserId', 'createdAt'] as const;
  const cells = [columns.map(String), ...rows.map((row) => columns.map((column) => String(row[column])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const argv = process.argv.slice(2);
main(argv).then(
  (result) => {
    if (argv[0] === 'list-clients' && Array.isArray(result)) {
      // One JSON line per client (jq-friendly), or --table.
      const rows = result as ListedClient[];
      if (argv.includes('--table')) process.stdout.write(`${table(rows)}\n`);
      else for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
      return;
    }
    // What went wrong beside a success (migrate's admin bootstrap) also goes to stderr, where an
    // operator or a deployment's log looks for problems.
    const warning = (result as { warning?: unknown } | undefined)?.warning;
    if (typeof warning === 'string') process.stderr.write(`warning: ${warning}\n`);
    // A URL (reset-password) or the version is printed as it is; everything else as one line of JSON.
    if (typeof result === 'string') process.stdout.write(`${result}\n`);
    else if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (error: unknown) => failStartup(error),
);
