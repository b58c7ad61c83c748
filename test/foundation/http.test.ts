import { request } from 'node:http';
import test from 'ava';
import { setUpTestSystem } from '../support/system.ts';

const system = setUpTestSystem(test, { METRICS_ENABLED: 'true' });

interface ErrorBody {
  status: string;
  path: string;
  timestamp: string;
  error: { code: string; message: string };
}

function isEnvelope(
  t: { is: (a: unknown, b: unknown) => void; truthy: (a: unknown) => void },
  json: unknown,
  path: string,
  code: string,
) {
  const body = json as ErrorBody;
  t.is(body.status, 'error');
  t.is(body.path, path);
  t.is(body.error.code, code);
  t.truthy(body.error.message);
  t.truthy(Date.parse(body.timestamp));
}

test('an unknown route is a 404 in the error envelope with a request id', async (t) => {
  const response = await fetch(`${system.url}/v2/no-such-thing`);
  t.is(response.status, 404);
  t.truthy(response.headers.get('x-request-id'));
  isEnvelope(t, await response.json(), '/v2/no-such-thing', 'NotFound');
});

test('an incoming request id is echoed; a malformed one is replaced', async (t) => {
  const kept = await fetch(`${system.url}/v2/x`, { headers: { 'X-Request-Id': 'gateway-123' } });
  t.is(kept.headers.get('x-request-id'), 'gateway-123');
  const replaced = await fetch(`${system.url}/v2/x`, { headers: { 'X-Request-Id': 'bad id <script>' } });
  t.not(replaced.headers.get('x-request-id'), 'bad id <script>');
});

test('generated request ids differ from request to request and are valid ids', async (t) => {
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const id = (await fetch(`${system.url}/v2/x`)).headers.get('x-request-id')!;
    t.regex(id, /^[A-Za-z0-9._:-]{1,128}$/);
    ids.add(id);
  }
  t.is(ids.size, 5);
});

test('malformed JSON is a 400 in the envelope, not a 500', async (t) => {
  const response = await fetch(`${system.url}/v2/teams`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"name": ',
  });
  t.is(response.status, 400);
  isEnvelope(t, await response.json(), '/v2/teams', 'BadRequest');
});

test('a body over 1 MiB is a 413', async (t) => {
  const response = await fetch(`${system.url}/v2/teams`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
  });
  t.is(response.status, 413);
  isEnvelope(t, await response.json(), '/v2/teams', 'PayloadTooLarge');
});

test('a non-JSON body is a 415', async (t) => {
  const response = await fetch(`${system.url}/v2/teams`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain' },
    body: 'hello',
  });
  t.is(response.status, 415);
  isEnvelope(t, await response.json(), '/v2/teams', 'UnsupportedMediaType');
});

test('invalid UTF-8 in a JSON body is a 4xx', async (t) => {
  const status = await new Promise<number>((resolve, reject) => {
    const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const req = request(
      `${system.url}/v2/teams`,
      { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  t.true(status >= 400 && status < 500, `status ${status}`);
});

test('health: alive and ready answer 200 with the checks named', async (t) => {
  const alive = await fetch(`${system.url}/health/alive`);
  t.is(alive.status, 200);
  const ready = await fetch(`${system.url}/health/ready`);
  t.is(ready.status, 200);
  const body = (await ready.json()) as { checks: Record<string, string> };
  t.is(body.checks.database, 'ok');
  if (system.redis) t.is(body.checks.redis, 'ok');
});

test('metrics are in Prometheus text format and count requests', async (t) => {
  await fetch(`${system.url}/v2/whatever`);
  const response = await fetch(`${system.url}/metrics`);
  t.is(response.status, 200);
  t.true(response.headers.get('content-type')!.startsWith('text/plain'));
  const text = await response.text();
  t.true(text.includes('http_request_duration_seconds_count'));
  t.true(text.includes('process_cpu_user_seconds_total'));
});

test('security headers deny framing and sniffing', async (t) => {
  const response = await fetch(`${system.url}/v2/x`);
  t.is(response.headers.get('x-content-type-options'), 'nosniff');
  t.is(response.headers.get('content-security-policy'), "frame-ancestors 'none'");
  t.is(response.headers.get('referrer-policy'), 'no-referrer');
});
