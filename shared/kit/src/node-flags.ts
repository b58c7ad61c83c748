/**
 * Node flags the services run with in production: `npm start` (package.json) and the Docker
 * images (the Dockerfile's commands) pass the same, and the benchmarks start their servers with
 * them so they measure what runs.
 *
 * `--max-semi-space-size=64`: a larger young generation means fewer scavenges for the same
 * allocation; the API allocates ~35 KB per request, and this took ~3 us (8%) off an authorized
 * GET in the membership-read benchmark, for up to ~100 MB more memory under load. Lower it (or
 * drop it) where memory is tight.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
