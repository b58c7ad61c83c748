import test from 'ava';
import { openRedis } from '@sched/db/redis';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import { setUpChromium } from '../support/browser.ts';
import { gatewayAvailable, servedBy, setUpTestGateway } from '../support/gateway.ts';
import { agentJourney } from '../mcp/agent-journey.ts';

// The MCP server is stateless: behind the gateway, two API processes answer one agent's calls
// (and two auth processes its authorization) as one: MCP works in every deployment shape.
const serial = gatewayAvailable() ? test.serial : test.serial.skip;
const gateway = gatewayAvailable() ? setUpTestGateway(test, { auth: 2, api: 2 }) : undefined;
const chromium = setUpChromium(test);

serial('an MCP agent through the gateway, its calls spread over both API processes', async (t) => {
  // The services' token store (production prefix) on the gateway's own Redis.
  const redis = await openRedis(gateway!.redisUrl, { connectionName: 'mcp-gateway-test' });
  const store = createRedisTokenStore({ redis, prefix: 'sched:' });
  const servers: string[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
    const response = await original(...args);
    if (new URL(String(args[0])).pathname === '/mcp' && response.headers.has('x-upstream')) {
      servers.push(servedBy(gateway!.gateway, response));
    }
    return response;
  };
  try {
    await agentJourney(t, { url: gateway!.url, knex: gateway!.database.db.knex, store, browser: chromium() });
  } finally {
    globalThis.fetch = original;
    redis.disconnect();
  }
  t.deepEqual([...new Set(servers)].sort(), ['api-1', 'api-2'], servers.join(' '));
});
