import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import test from 'ava';
import { ROOT } from '../support/process.ts';

/**
 * The import structure (docs/conventions.md, "Parts"): the two services never import each other,
 * shared libraries never import a service, the policy package imports nothing of ours, and the
 * top-level folders of each service's src/ import each other without circles (resource API:
 * routing/ is the request contract, auth/ and pipeline/ build on it; authorization server: embed/
 * builds on interaction/, both on embed-flow/; the settings pages and the admin console both
 * build on web/ and never on each other).
 */

interface Import {
  file: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Imports of the files under `dir` (relative to the repository, or absolute). */
function importsOf(dir: string): Import[] {
  return sourceFiles(resolve(ROOT, dir)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => ({
      file: relative(ROOT, file),
      specifier: (match[1] ?? match[2])!,
    })),
  );
}

/** The part of ours an import lands in: `@sched/<name>`, or a relative path resolved to its top folder. */
function targetPart({ file, specifier }: Import): string | null {
  if (specifier.startsWith('@sched/')) return specifier.split('/')[1]!;
  if (!specifier.startsWith('.')) return null;
  const target = relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(sep);
  if (target[0] === 'services' || target[0] === 'shared') return target[1]!;
  return target[0] ?? null;
}

const SERVICES = ['auth', 'api', 'launcher'];
const SHARED = readdirSync(join(ROOT, 'shared')).filter((name) =>
  statSync(join(ROOT, 'shared', name)).isDirectory(),
);

function violations(dir: string, forbidden: (part: string) => boolean): string[] {
  return importsOf(dir)
    .filter((found) => {
      const part = targetPart(found);
      return part !== null && forbidden(part);
    })
    .map(({ file, specifier }) => `${file} imports ${specifier}`);
}

test('the authorization server and the resource API never import each other', (t) => {
  t.deepEqual(
    violations('services/auth/src', (part) => part === 'api' || part === 'launcher'),
    [],
  );
  t.deepEqual(
    violations('services/api/src', (part) => part === 'auth' || part === 'launcher'),
    [],
  );
});

test('shared libraries never import a service', (t) => {
  for (const library of SHARED) {
    t.deepEqual(
      violations(`shared/${library}`, (part) => SERVICES.includes(part)),
      [],
      library,
    );
  }
  t.deepEqual(
    violations('migrations', (part) => SERVICES.includes(part)),
    [],
  );
});

test('the policy package imports nothing of ours', (t) => {
  t.deepEqual(
    violations('shared/policy/src', (part) => part !== 'policy'),
    [],
  );
});

/** Circles among the top-level folders of a service's src/ (files at the top count one by one). */
/** Circles among the top folders of `dir` (or, with `files`, among its files). */
function folderCircles(dir: string, unit: 'folders' | 'files' = 'folders'): string[] {
  const base = resolve(ROOT, dir);
  const nodeOf = (path: string) => {
    if (unit === 'files') return relative(base, path);
    const [first] = relative(base, path).split(sep);
    return first!;
  };
  const edges = new Map<string, Set<string>>();
  for (const { file, specifier } of importsOf(dir)) {
    if (!specifier.startsWith('.')) continue;
    const from = nodeOf(resolve(ROOT, file));
    const to = nodeOf(resolve(ROOT, dirname(file), specifier));
    if (from === to || to.startsWith('..')) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
  }
  const circles: string[] = [];
  const reaches = (from: string, to: string, seen = new Set<string>()): string[] | null => {
    for (const next of edges.get(from) ?? []) {
      if (next === to) return [from, to];
      if (seen.has(next)) continue;
      seen.add(next);
      const path = reaches(next, to, seen);
      if (path) return [from, ...path];
    }
    return null;
  };
  for (const node of edges.keys()) {
    const circle = reaches(node, node);
    if (circle) circles.push(circle.join(' -> '));
  }
  return circles;
}

test("the resource API's folders import each other without circles (routing never imports auth)", (t) => {
  t.deepEqual(folderCircles('services/api/src'), []);
  const routingImportsAuth = importsOf('services/api/src/routing').filter(({ specifier }) =>
    /(^|\/)auth\//.test(specifier),
  );
  t.deepEqual(routingImportsAuth, []);
});

/** Imports from `from` (a folder of the auth service's src/) into any of `into`. */
function authFolderImports(from: string, into: readonly string[]): string[] {
  const base = resolve(ROOT, 'services/auth/src');
  return importsOf(`services/auth/src/${from}`)
    .filter(({ file, specifier }) => {
      if (!specifier.startsWith('.')) return false;
      const [top] = relative(base, resolve(ROOT, dirname(file), specifier)).split(sep);
      return into.includes(top!);
    })
    .map(({ file, specifier }) => `${file} imports ${specifier}`);
}

test('the settings pages and the admin console never import each other; what both use is in web/, which imports neither', (t) => {
  t.deepEqual(authFolderImports('settings', ['admin']), []);
  t.deepEqual(authFolderImports('admin', ['settings']), []);
  t.deepEqual(authFolderImports('web', ['admin', 'settings']), []);
});

test("the authorization server's folders import each other without circles (embed builds on interaction)", (t) => {
  t.deepEqual(folderCircles('services/auth/src'), []);
});

test("the shared libraries' files import each other without circles (types beside what they describe)", (t) => {
  for (const name of SHARED) t.deepEqual(folderCircles(`shared/${name}/src`, 'files'), [], name);
});

test('the checker sees a circle when there is one', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sched-architecture-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'a', 'one.ts'), "import { two } from '../b/two.ts';\nexport const one = two;\n");
  writeFileSync(join(dir, 'b', 'two.ts'), "import type { one } from '../a/one.ts';\nexport const two = 2;\n");
  t.deepEqual(folderCircles(dir), ['a -> b -> a', 'b -> a -> b']);
  t.deepEqual(folderCircles(dir, 'files'), [
    'a/one.ts -> b/two.ts -> a/one.ts',
    'b/two.ts -> a/one.ts -> b/two.ts',
  ]);
});
