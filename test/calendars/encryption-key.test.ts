// ENCRYPTION_KEY in embedded mode: generated once into DATA_DIR/secrets.json beside the cookie keys
// (so `cli backup` carries it), the same on every later start, neither file's writer dropping the
// other's key.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadOrCreateCookieKeys, loadOrCreateEncryptionKey } from '@sched/launcher/data-dir';
import test from 'ava';
import { tempDir } from '../support/process.ts';

test('generated once, kept beside the cookie keys, mode 0600', async (t) => {
  const dir = await tempDir();
  try {
    const cookieKeys = await loadOrCreateCookieKeys(dir.path);
    const key = await loadOrCreateEncryptionKey(dir.path);
    t.true(key.length >= 32);
    t.is(await loadOrCreateEncryptionKey(dir.path), key);
    t.deepEqual(await loadOrCreateCookieKeys(dir.path), cookieKeys);
    const file = join(dir.path, 'secrets.json');
    t.deepEqual(JSON.parse(await readFile(file, 'utf8')), { cookieKeys, encryptionKey: key });
    t.is((await stat(file)).mode & 0o777, 0o600);
  } finally {
    await dir.remove();
  }
});

test('the cookie keys written after the encryption key keep it', async (t) => {
  const dir = await tempDir();
  try {
    const key = await loadOrCreateEncryptionKey(dir.path);
    await loadOrCreateCookieKeys(dir.path);
    t.is(await loadOrCreateEncryptionKey(dir.path), key);
  } finally {
    await dir.remove();
  }
});
