/**
 * Node flags the services run with in production: `npm start` (package.json) and the Docker
 * images (the Dockerfile's commands) pass the same, and the benchmarks start their servers with
 * them so they measure what runs.
 *
 * Memory budget (docs/performance.md "Memory": 150 MB resident per standalone service under load,
 * 250 MB for the all-in-one process). V8 grows its heap for throughput while memory is free: under
 * the refresh load the authorization server's old generation grew by 100 MB and more, and a 64 MB
 * semi-space (the earlier setting here) added up to 190 MB of young generation. `npm run bench
 * memory`, compiled entry points (dist/bundle), peak resident size during the load:
 *   --max-semi-space-size=64                          auth 307, api 160, all-in-one 243 MB
 *   --max-semi-space-size=16 --max-old-space-size=112 auth 152, api 135, all-in-one 158 MB
 *   --max-semi-space-size=8  --max-old-space-size=128 auth 135, api 119, all-in-one 140 MB
 * The last is the setting. `--max-old-space-size=128` is a hard limit (the live heap is ~40 MB
 * after start): a deployment holding far more in its caches raises it with NODE_OPTIONS.
 * What the smaller young generation costs in CPU per request must be read on a quiet machine
 * (`npm run bench memory` prints it beside the memory).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--max-old-space-size=128'];
