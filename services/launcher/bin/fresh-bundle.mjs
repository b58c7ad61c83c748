// Whether `npm run build`'s compiled entry points may run (plain JavaScript, used by run.mjs).
import { readFileSync, statSync } from 'node:fs';

/**
 * The compiled file of entry point `name` under `root` (a folder path ending in '/') when every
 * source it was built from is older than the build; undefined when there is no build, a source is
 * newer (edited since: the sources must run, never stale code) or a source is gone.
 */
export function freshBundle(root, name) {
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(`${root}dist/bundle/bin/inputs.json`, 'utf8'));
    if (inputs.some((input) => statSync(root + input).mtimeMs > builtAt)) return undefined;
    return `${root}dist/bundle/bin/${name}.mjs`;
  } catch {
    return undefined;
  }
}
