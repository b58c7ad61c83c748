import test from 'ava';
import { startTestSystem } from '../support/system.ts';

/**
 * `/metrics`: off the all-in-one process's public origin unless METRICS_ENABLED=true; with a
 * METRICS_TOKEN it needs that bearer token.
 */

test('the all-in-one process serves no metrics on its public origin by default', async (t) => {
  const system = await startTestSystem();
  t.teardown(() => system.close());
  const response = await fetch(`${system.url}/metrics`);
  t.is(response.status, 404);
  const body = (await response.json()) as { status: string };
  t.is(body.status, 'error');
  t.false((await fetch(`${system.url}/metrics`).then((r) => r.text())).includes('process_cpu'));
});

test('with METRICS_TOKEN, metrics need it as a bearer token', async (t) => {
  const token = 'metrics-token-0123456789';
  const system = await startTestSystem({ METRICS_ENABLED: 'true', METRICS_TOKEN: token });
  t.teardown(() => system.close());
  const anonymous = await fetch(`${system.url}/metrics`);
  t.is(anonymous.status, 401);
  t.is(anonymous.headers.get('www-authenticate'), 'Bearer');
  t.false((await anonymous.text()).includes('process_cpu'));
  const wrong = await fetch(`${system.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
  t.is(wrong.status, 401);
  const right = await fetch(`${system.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  t.is(right.status, 200);
  t.true((await right.text()).includes('process_cpu_user_seconds_total'));
});
