import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import test from 'ava';
import { setUpChromium } from '../support/browser.ts';
import { insertClient, insertUser } from '../support/factories.ts';
import { exitOf, outputMatching, watch } from '../support/process.ts';
import { freePorts } from '../support/redis-server.ts';
import { setUpWorld } from '../support/world.ts';

// The official MCP conformance suite's authorization-server scenarios
// (@modelcontextprotocol/conformance `authorization`: metadata endpoint, authorization code grant)
// against the service, the browser part done in Chromium. Its client sends no scope, only
// `resource` = the MCP server: the request gets the resource metadata's scopes.
const { system } = setUpWorld(test);
const chromium = setUpChromium(test);
const require = createRequire(import.meta.url);
const CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const PASSWORD = 'conformance suite password';

test('MCP conformance: authorization server scenarios pass', async (t) => {
  const knex = system.stores.db.knex;
  const user = await insertUser(knex, { password: PASSWORD });
  // Registered the normal way and approved; the suite's callback is http://127.0.0.1:<port>/callback.
  const client = await insertClient(knex, {
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ'],
  });
  const [port] = await freePorts(1);
  const suite = watch(
    spawn(
      process.execPath,
      [
        CLI,
        'authorization',
        '--url',
        system.url,
        '--client-id',
        client.client.id,
        '--resource',
        `${system.url}/mcp`,
        '--port',
        String(port),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  try {
    const [, url] = await outputMatching(suite, /^(http\S+\/auth\/oauth2\/authorize\?\S+)$/m);
    const context = await chromium().newContext();
    const page = await context.newPage();
    await page.goto(url!);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((landed) => landed.port === String(port));
    await context.close();
    const code = await exitOf(suite);
    const output = suite.output();
    t.is(code, 0, output);
    t.notRegex(output, /FAILURE|WARNING/, output);
    t.regex(output, /authorization-server-metadata/);
    t.regex(output, /authorization-code-grant|AuthorizationCodeGrant/);
  } finally {
    if (suite.process.exitCode === null) suite.process.kill();
  }
});
