// Container health probe (Docker HEALTHCHECK and compose healthcheck).
// Slim Node images ship no curl or wget, so this uses Node's built-in fetch.
// Usage: node /app/deploy/healthcheck.mjs [path]   (default path /health/ready)
// Exit 0 when the service answers 200 within the timeout, 1 otherwise.
const path = process.argv[2] ?? '/health/ready';
const port = process.env.PORT || '3000';
const url = `http://127.0.0.1:${port}${path}`;

try {
  const res = await fetch(url, { signal: AbortSignal.timeout(2500) });
  await res.body?.cancel();
  if (res.status !== 200) {
    console.error(`healthcheck: ${url} answered ${res.status}`);
    process.exit(1);
  }
  process.exit(0);
} catch (err) {
  console.error(`healthcheck: ${url} failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
