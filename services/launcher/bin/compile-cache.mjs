// Node's on-disk compile cache for the launcher's entry points (plain JavaScript, used by run.mjs).
import module from 'node:module';

/**
 * Turns on V8's code cache on disk, so that a restart reuses the compiled code of every module
 * (ours and node_modules) instead of compiling it again: about a tenth of a restart's CPU
 * (docs/performance.md, Start-up). Node keys each entry by the file and checks the source's hash,
 * so an edited or rebuilt file is compiled afresh, never run from a stale entry. NODE_COMPILE_CACHE
 * chooses another folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder that cannot be made
 * or written (a read-only installation) only means no cache: Node never throws for it.
 */
export function enableCompileCache(root) {
  if (typeof module.enableCompileCache !== 'function') return;
  if (process.env.NODE_COMPILE_CACHE) module.enableCompileCache();
  else module.enableCompileCache(`${root}node_modules/.cache/sched/compile-cache`);
}

/** Writes what was compiled so far (Node writes it at exit too; a killed process would not). */
export function flushCompileCache() {
  module.flushCompileCache?.();
}
