import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `npm run bench [name...]`: runs each scenario in test/bench/scenarios (or the named ones) in
 * turn. A scenario module exports `run(): Promise<void>` and prints its own figures and ratios;
 * timed assertions do not belong in tests, so nothing here fails on a slow machine.
 */
const dir = new URL('./scenarios/', import.meta.url).pathname;
const wanted = process.argv.slice(2);
const files = (await readdir(dir)).filter((file) => file.endsWith('.ts')).sort();
for (const file of files) {
  const name = file.replace(/\.ts$/, '');
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stdout.write(`\n=== ${name}\n`);
  const scenario = (await import(join(dir, file))) as { run: () => Promise<void> };
  await scenario.run();
}
