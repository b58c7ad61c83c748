import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * A CPU profile of a bench server from the moment it is ready (set-up left out) until it closes:
 * BENCH_CPU_PROFILE=<prefix> writes `<prefix>.<pid>.cpuprofile` (every server of a run writes its
 * own). Open it in Chrome DevTools, or compare two servers' self time by function.
 */
export async function startCpuProfile(prefix: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(`${prefix}.${process.pid}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}
