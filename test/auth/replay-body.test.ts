import type { IncomingMessage } from 'node:http';
import test from 'ava';
import type { Context } from 'koa';
import { replayToProvider } from '../../services/auth/src/http/replay-body.ts';

// What oidc-provider reads as the token or revocation request's body (http/replay-body.ts): the
// bytes as received when nothing was dropped, else the parameters encoded again.

function fakeContext(headers: Record<string, string>) {
  const req = { headers } as unknown as IncomingMessage;
  return { req, request: { req } } as unknown as Context;
}

/** The body as oidc-provider's reader sees it (a readable request it iterates). */
function replayed(ctx: Context): string {
  const body = ctx.req as unknown as { readable: boolean; iterator(): Iterable<Buffer> };
  if (!body.readable) throw new Error('the library would take this for an already parsed body');
  return Buffer.concat([...body.iterator()]).toString('utf8');
}

test('an unchanged form body is passed on byte for byte, headers untouched', async (t) => {
  const form = Buffer.from('grant_type=refresh_token&refresh_token=abc&client_id=c%20d', 'utf8');
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(form.length),
  };
  const ctx = fakeContext({ ...headers });
  replayToProvider(ctx, { params: { grant_type: 'refresh_token' }, form }, true);
  t.is(replayed(ctx), form.toString('utf8'));
  t.deepEqual(ctx.request.req.headers, headers);
});

test('a dropped parameter or a JSON body: the parameters are encoded again and the headers follow', async (t) => {
  const params = { grant_type: 'refresh_token', refresh_token: 'a b', client_id: 'c' };
  const form = Buffer.from('grant_type=refresh_token&refresh_token=a+b&client_id=c&scope=x', 'utf8');
  const ctx = fakeContext({
    'content-type': 'application/x-www-form-urlencoded',
    'transfer-encoding': 'chunked',
  });
  replayToProvider(ctx, { params, form }, false);
  const text = replayed(ctx);
  t.deepEqual(Object.fromEntries(new URLSearchParams(text)), params);
  t.is(ctx.request.req.headers['content-length'], String(Buffer.byteLength(text)));
  t.is(ctx.request.req.headers['transfer-encoding'], undefined);

  const json = fakeContext({ 'content-type': 'application/json' });
  replayToProvider(json, { params, form: undefined }, true);
  t.deepEqual(Object.fromEntries(new URLSearchParams(replayed(json))), params);
  t.is(json.request.req.headers['content-type'], 'application/x-www-form-urlencoded');
});
