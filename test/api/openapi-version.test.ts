import test from 'ava';
import { startTestSystem, type TestSystem } from '../support/system.ts';

// Every endpoint is under the /v2 path prefix, and the description document is version 1.0.0.
// The document as served at GET /v2/openapi.json.

let system: TestSystem;
test.before(async () => {
  system = await startTestSystem();
});
test.after.always(async () => {
  await system?.close();
});

test('the description document at /v2/openapi.json is version 1.0.0, served under /v2', async (t) => {
  const response = await fetch(`${system.url}/v2/openapi.json`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
  const document = (await response.json()) as {
    openapi: string;
    info: { version: string };
    servers: Array<{ url: string }>;
  };
  t.is(document.info.version, '1.0.0');
  t.is(document.openapi, '3.1.0');
  t.deepEqual(
    document.servers.map((server) => new URL(server.url).pathname),
    ['/v2'],
    'every path of the document is under the /v2 prefix',
  );
});
