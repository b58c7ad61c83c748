import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Knex } from '@sched/db/connection';
import { APP_VERSION } from '@sched/kit/version';
import { CommandInputError } from './command-error.ts';
import { describeHolder, lockDataDir, readLockHolder } from './data-dir.ts';

/**
 * Backup and restore of the embedded database (PGlite). A backup file is one JSON header line
 * (format, when, the app's version, the data folder's generated cookie keys when it has them,
 * the size of what follows) followed by PGlite's own dump of its data folder (`dumpDataDir`, a
 * gzip'd tar). The cookie keys travel with the data because the signing keys in the database are
 * encrypted under them (unless KEY_ENCRYPTION_KEY is set): a restore without them could not sign.
 * The file therefore holds secrets; it is written with mode 0600.
 */
const FORMAT = 'sched-embedded-backup';
const FORMAT_VERSION = 1;
const GZIP = 'application/x-gzip';

interface Header {
  format: typeof FORMAT;
  version: number;
  createdAt: string;
  appVersion: string;
  secrets: unknown;
  dataBytes: number;
}

const pgliteOf = (knex: Knex): PGlite | undefined => (knex.client as { pglite?: PGlite }).pglite;

/**
 * Writes a backup of the database `knex` is open on (the running server's, through the control
 * socket, or the CLI's own) to `to`, an absolute path; atomically (a temporary file renamed).
 */
export async function backupEmbedded(
  knex: Knex,
  dataDir: string,
  to: string,
): Promise<{ file: string; bytes: number; createdAt: string }> {
  const pglite = pgliteOf(knex);
  if (!pglite)
    throw new CommandInputError(
      'backup is for the embedded database; with DATABASE_URL use pg_dump (deploy/README.md)',
    );
  const file = resolve(to);
  const folder = await stat(dirname(file)).catch(() => undefined);
  if (!folder?.isDirectory()) throw new CommandInputError(`--to: no folder ${dirname(file)}`);
  // Queued behind the statements running now; the files are copied while nothing else runs, so
  // the copy is what a crash at that moment would leave, which Postgres recovers from.
  const dump = await pglite.dumpDataDir('gzip');
  const data = new Uint8Array(await dump.arrayBuffer());
  const secretsText = await readFile(join(dataDir, 'secrets.json'), 'utf8').catch(() => undefined);
  const createdAt = new Date().toISOString();
  const header: Header = {
    format: FORMAT,
    version: FORMAT_VERSION,
    createdAt,
    appVersion: APP_VERSION,
    secrets: secretsText === undefined ? null : JSON.parse(secretsText),
    dataBytes: data.byteLength,
  };
  const temporary = `${file}.${randomBytes(6).toString('hex')}.partial`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.write(`${JSON.stringify(header)}\n`);
    await handle.write(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const { size } = await stat(file);
  return { file, bytes: size, createdAt };
}

function readBackup(content: Buffer): { header: Header; data: Uint8Array } {
  const newline = content.indexOf(0x0a);
  let header: Header | undefined;
  try {
    header = newline > 0 ? (JSON.parse(content.subarray(0, newline).toString('utf8')) as Header) : undefined;
  } catch {
    header = undefined;
  }
  if (header?.format !== FORMAT)
    throw new CommandInputError('--from: not a backup made by the backup command');
  if (header.version !== FORMAT_VERSION)
    throw new CommandInputError(`--from: backup format version ${header.version} is not supported`);
  const data = content.subarray(newline + 1);
  if (data.byteLength !== header.dataBytes)
    throw new CommandInputError('--from: the backup file is truncated or damaged');
  return { header, data };
}

async function hasData(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.length > 0;
}

/**
 * Restores a backup into `DATA_DIR/pg`. Refused while a server holds the data folder, and into a
 * folder that has a database unless `force` (then the database is replaced; secrets.json too).
 * The backup is loaded into a sibling folder first and swapped in only once PGlite opened it.
 */
export async function restoreEmbedded(
  dataDir: string,
  from: string,
  force: boolean,
): Promise<{ restored: string; createdAt: string; appVersion: string; replaced: boolean }> {
  const holder = await readLockHolder(dataDir);
  if (holder !== undefined)
    throw new CommandInputError(
      `a server (${describeHolder(holder)}) holds ${dataDir}; stop it before restoring into that data folder`,
    );
  const content = await readFile(resolve(from)).catch((error: NodeJS.ErrnoException) => {
    throw new CommandInputError(`--from: cannot read ${from} (${error.code ?? error.message})`);
  });
  const { header, data } = readBackup(content);
  const release = await lockDataDir(dataDir);
  try {
    const target = join(dataDir, 'pg');
    const replaced = await hasData(target);
    if (replaced && !force)
      throw new CommandInputError(
        `${target} already holds a database; pass --force to replace it with the backup`,
      );
    const staging = join(dataDir, 'pg.restoring');
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true, mode: 0o700 });
    const pglite = await PGlite.create(staging, {
      loadDataDir: new Blob([new Uint8Array(data)], { type: GZIP }),
    });
    try {
      await pglite.query('select 1');
    } finally {
      await pglite.close();
    }
    const old = join(dataDir, `pg.replaced-${Date.now()}`);
    if (replaced || (await stat(target).catch(() => undefined))) await rename(target, old);
    await rename(staging, target);
    await rm(old, { recursive: true, force: true });
    if (header.secrets !== null && header.secrets !== undefined) {
      const file = join(dataDir, 'secrets.json');
      await writeFile(file, `${JSON.stringify(header.secrets, null, 2)}\n`, { mode: 0o600 });
      await chmod(file, 0o600);
    }
    return { restored: target, createdAt: header.createdAt, appVersion: header.appVersion, replaced };
  } finally {
    await release();
  }
}
