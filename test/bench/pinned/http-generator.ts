import { text } from 'node:stream/consumers';
import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from '../load.ts';

/** Generator process (generator.ts's httpLoad): one autocannon run; LoadOptions in, LoadResult out. */
const options = JSON.parse(await text(process.stdin)) as LoadOptions & { amount?: number };
const result = await autocannon({
  url: options.url,
  headers: options.headers ?? {},
  connections: options.connections,
  ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds }),
});
const summary: LoadResult = {
  tool: 'autocannon',
  requests: result.requests.total,
  // Answers over the run's own duration (autocannon's average is per whole second, coarse).
  requestsPerSecond: Math.round(result.requests.total / Math.max(0.01, result.duration)),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
};
process.stdout.write(JSON.stringify(summary));
