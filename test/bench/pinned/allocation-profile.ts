import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * An allocation profile of everything allocated, collected or not (BENCH_ALLOCATION_PROFILE=<file>
 * on a bench server). `node --heap-prof` keeps only the samples of objects still alive when the
 * profile is written, which hides the short-lived garbage a request leaves; the inspector's
 * sampling heap profiler can keep those collected by minor and major GCs too. Open the file
 * (`.heapprofile`) in Chrome DevTools' Memory tab, or sum it by function.
 *
 * BENCH_ALLOCATION_SURVIVORS=1 drops what minor GCs collect: what is left was promoted to the old
 * generation (or is still alive), the bytes that make mark-compacts come sooner.
 */
export async function startAllocationProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(process.env.BENCH_ALLOCATION_INTERVAL ?? 1024),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.BENCH_ALLOCATION_SURVIVORS !== '1',
  });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  };
}
