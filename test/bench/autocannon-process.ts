import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from './load.ts';

/**
 * One autocannon run in a process of its own (started by load.ts, pinned there): argv[2] is the
 * JSON of LoadOptions; prints the LoadResult as JSON.
 */
const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
const result = await autocannon({
  url: options.url,
  headers: options.headers ?? {},
  connections: options.connections,
  duration: options.durationSeconds,
});
const summary: LoadResult = {
  tool: 'autocannon',
  requests: result.requests.total,
  requestsPerSecond: Math.round(result.requests.average),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
};
process.stdout.write(JSON.stringify(summary));
