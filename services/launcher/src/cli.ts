import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { keyEncryptionSecrets } from '@sched/auth/keys/signing-keys';
import { openDatabase } from '@sched/db/connection';
import { openStores } from '@sched/db/stores';
import { failStartup } from '@sched/kit/boot';
import { loadConfig } from '@sched/kit/config';
import { type CommandContext, CommandInputError, commands, isCommandName } from './commands.ts';
import { sendControlCommand } from './control-socket.ts';
import { loadOrCreateCookieKeys, lockDataDir, readLockHolder } from './data-dir.ts';

const USAGE = `usage: npm run cli -- <command> [options]
  migrate                                          apply pending migrations
  create-admin --email E --password P [--name N]   create (or refresh the API key of) a service administrator
  reset-password --email E                         print a one-time password-reset URL (30 minutes)
  mail-failures                                    e-mails the outbox gave up on (JSON)
  rotate-keys                                      new ID-token signing key; the old one retires after its tokens expire`;

/** Runs one operator command: on Postgres directly; in embedded mode through the running server if any. */
async function main(argv: string[]): Promise<unknown> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return undefined;
  }
  if (!isCommandName(name)) throw new CommandInputError(`unknown command '${name}'\n${USAGE}`);
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  const config = loadConfig();
  const input =
    name === 'migrate'
      ? config.bootstrapAdmin
        ? { admin: config.bootstrapAdmin }
        : {}
      : name === 'reset-password'
        ? { ...values, appUrl: config.appUrl }
        : values;

  const signingKeys = (cookieKeys: readonly string[]): CommandContext['signingKeys'] => ({
    secrets: keyEncryptionSecrets({ keyEncryptionKey: config.keyEncryptionKey, cookieKeys }),
    alg: config.idTokenSigningAlg,
  });

  if (config.databaseUrl && name === 'rotate-keys') {
    // Running auth processes learn of the new key through the token store's version.
    const stores = await openStores({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      pgliteDir: join(config.dataDir, 'pg'),
    });
    try {
      return await commands[name](stores.db.knex, input, {
        signingKeys: signingKeys(config.cookieKeys ?? []),
        versions: stores.tokenStore,
      });
    } finally {
      await stores.close();
    }
  }

  if (config.databaseUrl) {
    const db = await openDatabase({ url: config.databaseUrl, poolMax: 2 });
    try {
      return await commands[name](db.knex, input);
    } finally {
      await db.close();
    }
  }

  const viaServer = await sendControlCommand(config.dataDir, name, input);
  if (viaServer) {
    if (viaServer.status !== 200)
      throw new CommandInputError(viaServer.body.error ?? `command failed (${viaServer.status})`);
    return viaServer.body.result;
  }
  const holder = await readLockHolder(config.dataDir);
  if (holder !== undefined)
    throw new Error(
      `the server (process ${holder}) holds ${config.dataDir} but its control socket does not answer`,
    );
  const release = await lockDataDir(config.dataDir);
  const db = await openDatabase({ pgliteDir: join(config.dataDir, 'pg') });
  try {
    // Opened by the CLI itself: bring the schema up to date first, as the server would.
    if (name !== 'migrate') await commands.migrate(db.knex, {});
    // No server runs: nothing to tell about new keys.
    const cookieKeys = config.cookieKeys ?? (await loadOrCreateCookieKeys(config.dataDir));
    return await commands[name](db.knex, input, {
      signingKeys: signingKeys(cookieKeys),
      versions: undefined,
    });
  } finally {
    await db.close();
    await release();
  }
}

main(process.argv.slice(2)).then(
  (result) => {
    // A URL (reset-password) is printed as it is; everything else as one line of JSON.
    if (typeof result === 'string') process.stdout.write(`${result}\n`);
    else if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (error: unknown) => failStartup(error),
);
