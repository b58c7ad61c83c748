import { collectDefaultMetrics, Histogram, register } from 'prom-client';

// One registry per process: in the all-in-one launcher both services report into it, told apart
// by the `service` label.
let defaultsCollected = false;
export function enableProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register });
}

const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by service, method, route pattern and status',
  labelNames: ['service', 'method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [register],
});

export function observeRequest(
  service: string,
  method: string,
  route: string,
  status: number,
  seconds: number,
): void {
  requestDuration.observe({ service, method, route, status: String(status) }, seconds);
}

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: register.contentType, body: await register.metrics() };
}
