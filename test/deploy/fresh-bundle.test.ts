import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { tempDir } from '../support/process.ts';

// services/launcher/bin/run.mjs runs `npm run build`'s compiled entry point only while no source it
// was built from changed since: an edited checkout never runs stale code.

type FreshBundle = (root: string, name: string) => string | undefined;
const modulePath = new URL('../../services/launcher/bin/fresh-bundle.mjs', import.meta.url).href;
const { freshBundle } = (await import(modulePath)) as { freshBundle: FreshBundle };

async function fakeBuild(root: string, builtAt: number, inputs: string[]) {
  await mkdir(join(root, 'dist/bundle/bin'), { recursive: true });
  await writeFile(join(root, 'dist/bundle/bin/inputs.json'), JSON.stringify({ builtAt, inputs }));
}

async function source(root: string, path: string, modifiedAt: number) {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), 'export {};\n');
  await utimes(join(root, path), modifiedAt / 1000, modifiedAt / 1000);
}

test('the build runs while every source is older than it', async (t) => {
  const dir = await tempDir('sched-fresh-bundle-');
  try {
    const root = `${dir.path}/`;
    const builtAt = Date.now();
    await source(root, 'services/x/src/a.ts', builtAt - 60_000);
    await source(root, 'shared/y/src/b.ts', builtAt - 60_000);
    await fakeBuild(root, builtAt, ['services/x/src/a.ts', 'shared/y/src/b.ts']);
    t.is(freshBundle(root, 'start'), `${root}dist/bundle/bin/start.mjs`);
  } finally {
    await dir.remove();
  }
});

test('a source edited after the build, a source gone or no build: the sources run', async (t) => {
  const dir = await tempDir('sched-fresh-bundle-');
  try {
    const root = `${dir.path}/`;
    t.is(freshBundle(root, 'start'), undefined, 'never built');
    const builtAt = Date.now() - 60_000;
    await source(root, 'services/x/src/a.ts', builtAt - 60_000);
    await source(root, 'shared/y/src/b.ts', builtAt + 30_000);
    await fakeBuild(root, builtAt, ['services/x/src/a.ts', 'shared/y/src/b.ts']);
    t.is(freshBundle(root, 'start'), undefined, 'edited since');
    await fakeBuild(root, builtAt, ['services/x/src/a.ts', 'shared/y/src/removed.ts']);
    t.is(freshBundle(root, 'start'), undefined, 'a source removed');
  } finally {
    await dir.remove();
  }
});
