import { RequestHistogram } from '@sched/kit/http/request-histogram';
import test from 'ava';
import { type Metric, Registry } from 'prom-client';

/**
 * The request-duration histogram keeps plain counters and renders Prometheus text on scrape
 * (request-histogram.ts): the same series a prom-client Histogram gave (cumulative buckets, +Inf,
 * _sum, _count per label set).
 */

async function render(histogram: RequestHistogram): Promise<string[]> {
  const registry = new Registry();
  registry.registerMetric(histogram as unknown as Metric);
  return (await registry.metrics()).split('\n');
}

test('observations land in cumulative buckets per label set, with +Inf, sum and count', async (t) => {
  const histogram = new RequestHistogram('test_duration_seconds', 'test', [0.01, 0.1]);
  histogram.observe('api', 'GET', '/v2/x', 200, 0.005);
  histogram.observe('api', 'GET', '/v2/x', 200, 0.05);
  histogram.observe('api', 'GET', '/v2/x', 200, 5);
  histogram.observe('api', 'GET', '/v2/x', 404, 0.01);
  const lines = await render(histogram);
  const labels = 'service="api",method="GET",route="/v2/x"';
  t.true(lines.includes('# TYPE test_duration_seconds histogram'));
  t.true(lines.includes(`test_duration_seconds_bucket{${labels},status="200",le="0.01"} 1`));
  t.true(lines.includes(`test_duration_seconds_bucket{${labels},status="200",le="0.1"} 2`));
  t.true(lines.includes(`test_duration_seconds_bucket{${labels},status="200",le="+Inf"} 3`));
  t.true(lines.includes(`test_duration_seconds_count{${labels},status="200"} 3`));
  t.true(lines.includes(`test_duration_seconds_sum{${labels},status="200"} 5.055`));
  // A bound is inclusive (le: less than or equal).
  t.true(lines.includes(`test_duration_seconds_bucket{${labels},status="404",le="0.01"} 1`));
  t.true(lines.includes(`test_duration_seconds_count{${labels},status="404"} 1`));
});

test('reset drops every series', async (t) => {
  const histogram = new RequestHistogram('test_reset_seconds', 'test');
  histogram.observe('api', 'GET', '/v2/x', 200, 0.001);
  histogram.reset();
  t.false((await render(histogram)).some((line) => line.startsWith('test_reset_seconds_count')));
});
