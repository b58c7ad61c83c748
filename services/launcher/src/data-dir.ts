import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Only one process may open a PGlite data folder: a pid file says who holds it. */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readLockHolder(dataDir: string): Promise<number | undefined> {
  const text = await readFile(join(dataDir, 'server.pid'), 'utf8').catch(() => undefined);
  const pid = text ? Number.parseInt(text, 10) : Number.NaN;
  return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined;
}

/** Takes the data folder for this process; returns the release function. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const holder = await readLockHolder(dataDir);
  if (holder !== undefined) {
    throw new DataDirBusyError(`the embedded database in ${dataDir} is in use by process ${holder}`);
  }
  const file = join(dataDir, 'server.pid');
  await writeFile(file, String(process.pid), { mode: 0o600 });
  return async () => {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text === String(process.pid)) await rm(file, { force: true });
  };
}

/**
 * Cookie signing keys for the embedded default: generated once and kept in the data folder, so
 * sessions survive restarts without the operator having to invent a secret.
 */
export async function loadOrCreateCookieKeys(dataDir: string): Promise<string[]> {
  const file = join(dataDir, 'secrets.json');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing) {
    const parsed = JSON.parse(existing) as { cookieKeys?: unknown };
    if (
      Array.isArray(parsed.cookieKeys) &&
      parsed.cookieKeys.every((key) => typeof key === 'string' && key.length >= 32)
    ) {
      return parsed.cookieKeys as string[];
    }
  }
  const cookieKeys = [randomBytes(32).toString('base64url')];
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify({ cookieKeys }, null, 2)}\n`, { mode: 0o600 });
  return cookieKeys;
}
