import { Writable } from 'node:stream';
import test from 'ava';
import Koa from 'koa';
import { requestContext } from '@sched/kit/http/request-context';
import { createLogger } from '@sched/kit/logger';
import { insertClient, insertUser } from '../support/factories.ts';
import { waitForMail } from '../support/mail.ts';
import { FlowBrowser, issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

/** The access log (one info line a request) and the operator's metrics. */

function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info' }, stream) };
}

async function serve(app: Koa) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('the access log writes one info line per request, with id, method, path, status and time', async (t) => {
  const { lines, logger } = captured();
  const app = new Koa();
  app.use(requestContext('api', logger));
  app.use((ctx) => {
    ctx.status = 204;
  });
  const server = await serve(app);
  t.teardown(() => server.close());
  const response = await fetch(`${server.url}/v2/something?secret=not-logged`, {
    headers: { 'x-request-id': 'req-1' },
  });
  t.is(response.status, 204);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const requests = lines.filter((line) => line.msg === 'request');
  t.is(requests.length, 1);
  t.like(requests[0], { level: 30, requestId: 'req-1', method: 'GET', path: '/v2/something', status: 204 });
  t.is(typeof requests[0]!.ms, 'number');
  t.false(JSON.stringify(requests[0]).includes('not-logged'), 'the query string is not logged');
});

test('ACCESS_LOG=false: no request lines', async (t) => {
  const { lines, logger } = captured();
  const app = new Koa();
  app.use(requestContext('api', logger, { accessLog: false }));
  app.use((ctx) => {
    ctx.status = 204;
  });
  const server = await serve(app);
  t.teardown(() => server.close());
  await fetch(`${server.url}/v2/x`);
  t.is(lines.length, 0);
});

const world = setUpWorld(test, { env: { METRICS_ENABLED: 'true' } });

test('metrics count grants by type and outcome, sign-in failures, rate-limit refusals and mail', async (t) => {
  const user = await insertUser(world.knex());
  const { client, secret, redirectUri } = await insertClient(world.knex(), { scopes: ['PROFILE_READ'] });
  const tokens = await issueTokens(world.system.url, { client, secret, redirectUri }, user, ['PROFILE_READ']);
  const refused = await tokenRequest(world.system.url, {
    client_id: client.id,
    client_secret: secret!,
    grant_type: 'refresh_token',
    refresh_token: `${tokens.refresh_token}x`,
  });
  t.is(refused.status, 400);
  // A wrong password on the settings sign-in page.
  const browser = new FlowBrowser(world.system.url);
  const form = await browser.open('/auth/settings/sign-in');
  if (form.kind === 'page')
    await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: 'wrong password!' });
  // Verification mail, five times allowed an hour: the sixth is refused (a rate-limit refusal).
  await world.knex()('users').where({ id: user.id }).update({ email_verified_at: null });
  for (let i = 0; i < 6; i++) await world.call('POST', '/v2/me/verification-email', { token: user.apiKey });
  await waitForMail(world, user.email);

  const text = await (await fetch(`${world.system.url}/metrics`)).text();
  t.regex(text, /oauth_grants_total\{grant_type="authorization_code",outcome="success"\} [1-9]/);
  t.regex(text, /oauth_grants_total\{grant_type="refresh_token",outcome="invalid_grant"\} [1-9]/);
  t.regex(text, /sign_in_failures_total\{reason="credentials"\} [1-9]/);
  t.regex(text, /rate_limit_refusals_total\{limit="[^"]+"\} [1-9]/);
  t.regex(text, /mail_messages_total\{outcome="sent"\} [1-9]/);
});
