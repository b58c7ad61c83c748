import test from 'ava';
import { setUpChromium } from '../support/browser.ts';
import { setUpWorld } from '../support/world.ts';
import { agentJourney } from './agent-journey.ts';

// MCP agents end to end (docs/mcp.md) in the all-in-one process (test/scaleout/mcp-gateway.test.ts:
// behind the gateway with two API processes).
const { system } = setUpWorld(test);
const chromium = setUpChromium(test);

test('an MCP agent: discovery, consent in Chromium, /mcp token, tools, step-up, booking, refresh', async (t) => {
  await agentJourney(t, {
    url: system.url,
    knex: system.stores.db.knex,
    store: system.stores.tokenStore,
    browser: chromium(),
  });
});
