// `node services/launcher/bin/run.mjs start|cli|auth|api [args]`: runs the entry point compiled by
// `npm run build` (dist/bundle/bin, see services/launcher/src/bundle.ts) when it is up to date,
// else its TypeScript source. Plain JavaScript, so choosing costs no type-stripping compiler.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES = {
  start: 'services/launcher/src/start.ts',
  cli: 'services/launcher/src/cli.ts',
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
};

/** The bundle of `name` when every source it was built from is older than it; else undefined. */
function freshBundle(name) {
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(`${ROOT}dist/bundle/bin/inputs.json`, 'utf8'));
    // A source edited after the build: run the sources, never stale code.
    if (inputs.some((input) => statSync(ROOT + input).mtimeMs > builtAt)) return undefined;
    return `${ROOT}dist/bundle/bin/${name}.mjs`;
  } catch {
    return undefined; // never built (a fresh `npm install`), or a source removed since
  }
}

const name = process.argv[2];
if (!(name in SOURCES)) {
  process.stderr.write(`usage: run.mjs ${Object.keys(SOURCES).join('|')} [args]\n`);
  process.exit(2);
}
// The entry points read their own arguments from argv[2] on.
process.argv.splice(2, 1);
await import(freshBundle(name) ?? ROOT + SOURCES[name]);
