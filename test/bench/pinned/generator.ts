import { spawn } from 'node:child_process';
import type { LoadOptions, LoadResult, Pinning } from '../load.ts';
import type { Chain } from '../refresh-load.ts';
import type { RefreshLoadInput, RefreshLoadOutput } from './refresh-generator.ts';

/**
 * A load generator in a process of its own, pinned to the generator's CPU: input as JSON on its
 * standard input, output as JSON on its standard output. A generator sharing a server's process
 * or core adds its own cost to the server's and hides differences (issue 22).
 */
export function runGeneratorProcess<O>(script: string, input: unknown, pinning: Pinning | null): Promise<O> {
  const node = [process.execPath, script];
  const [file, args] = pinning ? ['taskset', ['-c', pinning.generator, ...node]] : [node[0]!, node.slice(1)];
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()) as O);
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

const httpScript = new URL('./http-generator.ts', import.meta.url).pathname;

/** autocannon against one URL (GETs, fixed headers) for a duration or a number of requests. */
export function httpLoad(options: LoadOptions & { amount?: number }, pinning: Pinning | null) {
  return () => runGeneratorProcess<LoadResult>(httpScript, options, pinning);
}

const refreshScript = new URL('./refresh-generator.ts', import.meta.url).pathname;

/**
 * Refresh grants with rotation: each call sends `amount` requests, taking refresh tokens from
 * `pool` and keeping the rotated ones in it for the next call. Unexpected answers are added to
 * `failures` (body -> count).
 */
export function refreshLoad(
  target: { url: string; path: string; pool: Chain[]; connections: number; amount: number },
  pinning: Pinning | null,
  failures: Map<string, number> = new Map(),
) {
  let pool = target.pool;
  return async (): Promise<LoadResult> => {
    const input: RefreshLoadInput = { ...target, pool };
    const output = await runGeneratorProcess<RefreshLoadOutput>(refreshScript, input, pinning);
    pool = output.pool;
    for (const [body, count] of output.failures) failures.set(body, (failures.get(body) ?? 0) + count);
    return output.result;
  };
}
