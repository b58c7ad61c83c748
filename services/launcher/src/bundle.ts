import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';

/**
 * `npm run build`: each entry point and the workspace code it imports, compiled to plain
 * JavaScript in dist/bundle/bin/ (packages from node_modules stay imports). The launchers in
 * services/launcher/bin run these instead of the .ts sources when they are up to date.
 *
 * Why: with type stripping Node loads ~300 source files one by one, strips each with a
 * WebAssembly compiler (~12 MB resident), and resolves every import; that was the larger part of
 * a start and a tenth of an idle process's memory. Compiled, a start loads a few files.
 *
 * The output sits three folders below the repository (dist/bundle/bin), as the sources do
 * (shared/kit/src): the few modules that find files relative to themselves find the same ones.
 */

const ROOT = new URL('../../../', import.meta.url).pathname;
export const BUNDLE_DIR = join(ROOT, 'dist/bundle/bin');

const ENTRIES = {
  start: 'services/launcher/src/start.ts',
  cli: 'services/launcher/src/cli.ts',
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
};

/** Bare imports other than the workspace's own (@sched/*) stay imports of node_modules. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@sched/') || args.path.startsWith('node:')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

const result = await build({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(ROOT, path)])),
  outdir: BUNDLE_DIR,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  plugins: [externalPackages],
});
// The launchers compare these sources' modification times with the bundle's (stale: not used).
const inputs = Object.keys(result.metafile.inputs).map((input) => relative(ROOT, join(process.cwd(), input)));
await writeFile(join(BUNDLE_DIR, 'inputs.json'), JSON.stringify({ builtAt: Date.now(), inputs }));
process.stdout.write(
  `bundled ${Object.keys(ENTRIES).join(', ')} (${inputs.length} sources) into ${relative(ROOT, BUNDLE_DIR)}\n`,
);
