// `node services/launcher/bin/run.mjs start|cli|auth|api [args]`: runs the entry point compiled by
// `npm run build` (dist/bundle/bin, see services/launcher/src/bundle.ts) when it is up to date,
// else its TypeScript source. Plain JavaScript, so choosing costs no type-stripping compiler.
import { fileURLToPath } from 'node:url';
import { enableCompileCache, flushCompileCache } from './compile-cache.mjs';
import { freshBundle } from './fresh-bundle.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES = {
  start: 'services/launcher/src/start.ts',
  cli: 'services/launcher/src/cli.ts',
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
};

const name = process.argv[2];
if (!(name in SOURCES)) {
  process.stderr.write(`usage: run.mjs ${Object.keys(SOURCES).join('|')} [args]\n`);
  process.exit(2);
}
// The entry points read their own arguments from argv[2] on.
process.argv.splice(2, 1);
enableCompileCache(ROOT);
await import(freshBundle(ROOT, name) ?? ROOT + SOURCES[name]);
// The entry point has loaded every module it needs at start (a server is listening by now).
flushCompileCache();
