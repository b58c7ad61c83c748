import { collectDefaultMetrics, type Metric, register } from 'prom-client';
import { RequestHistogram } from './request-histogram.ts';

// One registry per process: in the all-in-one launcher both services report into it, told apart
// by the `service` label.
let defaultsCollected = false;
export function enableProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register });
}

// Aggregated in plain counters, rendered on scrape (request-histogram.ts: a prom-client Histogram
// cost about a microsecond per request).
const requestDuration = new RequestHistogram(
  'http_request_duration_seconds',
  'HTTP request duration by service, method, route pattern and status',
);
register.registerMetric(requestDuration as unknown as Metric);

export function observeRequest(
  service: string,
  method: string,
  route: string,
  status: number,
  seconds: number,
): void {
  requestDuration.observe(service, method, route, status, seconds);
}

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: register.contentType, body: await register.metrics() };
}
