import { readFileSync } from 'node:fs';
import { access, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrations } from '@sched/migrations';

/**
 * A ready-made embedded database: what initdb and every migration produce, made once at build
 * time (`npm run build`) and copied into an empty data folder on a first start.
 *
 * Why: PGlite's initdb takes 8 to 12 s here, and the migrations another second; a copy of the
 * cleanly closed result takes a few hundred milliseconds. The template is only used when its
 * stamp (PGlite's version and the migration names) matches this checkout; otherwise the first
 * start runs initdb and the migrations itself, as it did before, so a machine that never ran the
 * build still starts. Migrations added later run on the copy as on any existing database.
 */

const TEMPLATE_DIR = new URL('../../../node_modules/.cache/sched/pglite-template/', import.meta.url).pathname;
const DATA = join(TEMPLATE_DIR, 'data');
const STAMP = join(TEMPLATE_DIR, 'stamp.json');

/** What the template must have been made with to be copied: PGlite's version and the migrations. */
export function templateStamp(): string {
  // The package's exports do not include its package.json: found beside its entry's dist folder.
  let folder = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!folder.endsWith('pglite') && folder !== '/') folder = dirname(folder);
  const pglite = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  return JSON.stringify({ pglite: pglite.version, migrations: migrations.map(([name]) => name) });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Whether a first start would be seeded from the template (it exists and matches this checkout). */
export async function templateReady(): Promise<boolean> {
  return (await readFile(STAMP, 'utf8').catch(() => undefined)) === templateStamp();
}

/**
 * Copies the template into `dir` when `dir` holds no database yet and the template matches this
 * checkout; returns whether it did. A copy interrupted half-way is not a database: it is made
 * beside `dir` and renamed into place.
 */
export async function seedFromTemplate(dir: string): Promise<boolean> {
  if (await exists(join(dir, 'PG_VERSION'))) return false;
  if (!(await templateReady())) return false;
  const partial = `${dir}.seeding`;
  await rm(partial, { recursive: true, force: true });
  await cp(DATA, partial, { recursive: true });
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  return true;
}

/**
 * Makes the template with `prepare` (which must leave a closed, fully migrated database in the
 * folder it is given) unless an up-to-date one exists; returns whether it made one.
 */
export async function buildTemplate(prepare: (dir: string) => Promise<void>): Promise<boolean> {
  const stamp = templateStamp();
  if ((await readFile(STAMP, 'utf8').catch(() => undefined)) === stamp) return false;
  await rm(TEMPLATE_DIR, { recursive: true, force: true });
  await mkdir(TEMPLATE_DIR, { recursive: true });
  await prepare(DATA);
  await writeFile(STAMP, stamp);
  return true;
}
