import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from '@sched/kit/config';

/**
 * Only one process may open a PGlite data folder. The lock is a unix socket the holder listens on
 * (`server.lock`, mode 0600) and that answers with the holder's process id: a process that died,
 * even with `kill -9`, leaves a file nobody answers on, so neither a dead process, a zombie nor a
 * process id the system has since given to another program can pass for the holder (a pid file
 * could be fooled by all three).
 */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}

const lockPath = (dataDir: string): string => join(dataDir, 'server.lock');

/**
 * The holder of the lock socket: its process id; `unknown` when a process accepted the connection
 * but did not say who it is in time (stopped with Ctrl-Z or SIGSTOP, or swamped): alive all the
 * same, since a dead holder's socket file refuses connections; undefined when nobody listens.
 */
function askHolder(path: string): Promise<number | 'unknown' | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let connected = false;
    let answer = '';
    const done = (pid: number | 'unknown' | undefined) => {
      socket.destroy();
      resolve(pid);
    };
    socket.on('connect', () => {
      connected = true;
    });
    socket.setTimeout(2000, () => done(connected ? 'unknown' : undefined));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', () => {
      const pid = Number.parseInt(answer, 10);
      done(Number.isInteger(pid) ? pid : 'unknown');
    });
    socket.on('error', () => done(undefined));
  });
}

/** The live holder's process id (`unknown`: alive but not answering); undefined when none. */
export async function readLockHolder(dataDir: string): Promise<number | 'unknown' | undefined> {
  const pid = await askHolder(lockPath(dataDir));
  return pid === process.pid ? undefined : pid;
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Longest unix socket path (`sun_path`, less its NUL): the lock and the control socket live in the
 * data folder, so a deeper folder cannot hold them.
 */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;
/** The longer of the two socket names (`control.sock`, `server.lock`). */
const LONGEST_SOCKET_NAME = 'control.sock';

/** The operator's one line for a data folder this process cannot use: it names DATA_DIR. */
function unusable(dataDir: string, error: unknown): ConfigError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new ConfigError(
    `Invalid configuration: DATA_DIR ${dataDir} cannot be used as the data folder (${reason})`,
  );
}

/**
 * A data folder that was there already (made by hand, a volume) may be open to every account on the
 * machine: the database files under it hold password hashes, addresses and everything else. Like
 * PostgreSQL, which refuses such a data directory, we keep other accounts out, here by taking their
 * access away (the group's is left to the operator: backups often run as a group).
 */
async function closeToOthers(dataDir: string): Promise<void> {
  const { mode } = await stat(dataDir);
  if ((mode & 0o007) === 0) return;
  await chmod(dataDir, mode & 0o7770).catch((error: unknown) => {
    throw unusable(dataDir, error);
  });
}

/** Takes the data folder for this process; returns the release function. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const longest = Buffer.byteLength(join(dataDir, LONGEST_SOCKET_NAME));
  if (longest > MAX_SOCKET_PATH)
    throw new ConfigError(
      `Invalid configuration: DATA_DIR ${dataDir} is too long for the sockets kept in it: use a path of at most ${MAX_SOCKET_PATH - LONGEST_SOCKET_NAME.length - 1} bytes`,
    );
  await mkdir(dataDir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw unusable(dataDir, error);
  });
  await closeToOthers(dataDir);
  const path = lockPath(dataDir);
  const server = createServer((socket) => socket.end(String(process.pid)));
  try {
    await listen(server, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw unusable(dataDir, error);
    const holder = await askHolder(path);
    if (holder === 'unknown') {
      // Taking over would open the database beside a live process: corruption when it resumes.
      throw new DataDirBusyError(
        `the embedded database in ${dataDir} is held by a process that does not answer (stopped?); resume or end it first`,
      );
    }
    if (holder !== undefined) {
      throw new DataDirBusyError(`the embedded database in ${dataDir} is in use by process ${holder}`);
    }
    // Left by a process that is gone: nobody answers on it.
    await rm(path, { force: true });
    await listen(server, path);
  }
  await chmod(path, 0o600);
  // The lock must not keep the process alive on its own.
  server.unref();
  // Older versions kept a pid file; it says nothing now.
  await rm(join(dataDir, 'server.pid'), { force: true });
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(path, { force: true });
  };
}

/**
 * Cookie signing keys for the embedded default: generated once and kept in the data folder, so
 * sessions survive restarts without the operator having to invent a secret.
 */
export async function loadOrCreateCookieKeys(dataDir: string): Promise<string[]> {
  const file = join(dataDir, 'secrets.json');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  const kept = existing ? cookieKeysOf(existing) : undefined;
  if (kept) return kept;
  const cookieKeys = [randomBytes(32).toString('base64url')];
  const others = (existing ? JSON.parse(existing) : {}) as Record<string, unknown>;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify({ ...others, cookieKeys }, null, 2)}\n`, { mode: 0o600 });
  return cookieKeys;
}

function cookieKeysOf(text: string): string[] | undefined {
  const parsed = JSON.parse(text) as { cookieKeys?: unknown };
  return Array.isArray(parsed.cookieKeys) &&
    parsed.cookieKeys.every((key) => typeof key === 'string' && key.length >= 32)
    ? (parsed.cookieKeys as string[])
    : undefined;
}

/**
 * The cookie keys `npm start` generated into the data folder, if it did; never makes any. The CLI
 * on Postgres without COOKIE_KEYS needs the running server's (they encrypt the signing keys), and
 * keys of its own would make signing keys no server can read.
 */
export async function readCookieKeys(dataDir: string): Promise<string[] | undefined> {
  const existing = await readFile(join(dataDir, 'secrets.json'), 'utf8').catch(() => undefined);
  return existing ? cookieKeysOf(existing) : undefined;
}

/**
 * ENCRYPTION_KEY for the all-in-one process when none is set (docs/calendars.md "For operators"):
 * generated once and kept in DATA_DIR/secrets.json beside the cookie keys, so calendar credentials
 * stay readable across restarts and the data folder's backup (cli backup) carries it.
 */
export async function loadOrCreateEncryptionKey(dataDir: string): Promise<string> {
  const file = join(dataDir, 'secrets.json');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  const secrets = (existing ? JSON.parse(existing) : {}) as Record<string, unknown>;
  if (typeof secrets.encryptionKey === 'string' && secrets.encryptionKey.length >= 32)
    return secrets.encryptionKey;
  const encryptionKey = randomBytes(32).toString('base64url');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify({ ...secrets, encryptionKey }, null, 2)}\n`, { mode: 0o600 });
  return encryptionKey;
}

/** How the operator's messages name a holder readLockHolder found. */
export const describeHolder = (holder: number | 'unknown'): string =>
  holder === 'unknown' ? 'a process that does not answer (stopped?)' : `process ${holder}`;
