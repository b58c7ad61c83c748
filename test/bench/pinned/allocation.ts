import { GCProfiler, getHeapStatistics } from 'node:v8';

/**
 * Bytes allocated on the JS heap. Node 24's V8 exposes no allocation counter
 * (getHeapStatistics() has no total_allocated_bytes), but the used heap only grows between
 * collections: allocated = the growth up to each collection (GCProfiler reports the used size
 * before and after each one) plus the growth since the last one. Exact for what V8 counts as used
 * (new and old space, large objects); buffers outside the heap are not counted.
 */
export function allocationCounter(): () => number {
  let allocated = 0;
  let usedAfterLastGc = getHeapStatistics().used_heap_size;
  let profiler = new GCProfiler();
  profiler.start();
  return () => {
    const report = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    for (const gc of report?.statistics ?? []) {
      allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - usedAfterLastGc);
      usedAfterLastGc = gc.afterGC.heapStatistics.usedHeapSize;
    }
    const used = getHeapStatistics().used_heap_size;
    allocated += Math.max(0, used - usedAfterLastGc);
    usedAfterLastGc = used;
    return allocated;
  };
}
