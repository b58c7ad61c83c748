import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openDatabase } from '@sched/db/connection';
import { migrateLatest, pendingMigrations } from '@sched/db/migrate';
import { buildTemplate, seedFromTemplate } from '@sched/db/pglite-template';
import test from 'ava';
import { tempDir } from '../support/process.ts';

// The embedded database's build-time template (#22: a first start copies it instead of running
// initdb): a copy is a complete, migrated database, and a folder that holds a database already is
// never overwritten by it.

test.before(async () => {
  // As `npm run build` makes it (a no-op when the build already did).
  await buildTemplate(async (dir) => {
    const db = await openDatabase({ pgliteDir: dir });
    await migrateLatest(db.knex);
    await db.close();
  });
});

test.serial('a first start gets a migrated copy of the template', async (t) => {
  const dir = await tempDir('sched-template-');
  try {
    const pg = join(dir.path, 'pg');
    t.true(await seedFromTemplate(pg));
    const db = await openDatabase({ pgliteDir: pg });
    try {
      t.deepEqual(await pendingMigrations(db.knex), []);
      t.deepEqual(await migrateLatest(db.knex), []);
      await db.knex('users').count('* as n');
    } finally {
      await db.close();
    }
  } finally {
    await dir.remove();
  }
});

test.serial('an existing database is never replaced by the template', async (t) => {
  const dir = await tempDir('sched-template-');
  try {
    const pg = join(dir.path, 'pg');
    t.true(await seedFromTemplate(pg));
    const marker = join(pg, 'kept-by-the-owner');
    await writeFile(marker, 'mine');
    t.false(await seedFromTemplate(pg));
    const db = await openDatabase({ pgliteDir: pg });
    await db.close();
    t.is(await readFile(marker, 'utf8'), 'mine');
  } finally {
    await dir.remove();
  }
});
