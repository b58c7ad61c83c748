// The MCP layer's cost per call (issue 21): a `get_me` tool call (POST /mcp, JSON-RPC, the SDK's
// Streamable HTTP transport and a server per request: the server is stateless) beside the REST
// call it stands for (GET /v2/me), same user, same scope, same process. Each is an OAuth token of
// its own audience. Alternating rounds, medians; the ratio is what the issue asks about.
import { insertUser } from '../../support/factories.ts';
import { MCP_PROTOCOL_VERSION } from '../../support/mcp.ts';
import { startTestSystem } from '../../support/system.ts';
import { createTestAccessToken } from '../../support/tokens.ts';
import { type Measurement, measure, printRatio, printTable } from '../measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

const median = (rows: Measurement[]): Measurement =>
  [...rows].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(rows.length / 2)]!;

export async function run(): Promise<void> {
  const system = await startTestSystem({ ACCESS_LOG: 'false', LOG_LEVEL: 'warn' });
  try {
    const user = await insertUser(system.stores.db.knex);
    const scopes = ['PROFILE_READ'];
    const apiToken = await createTestAccessToken(system.stores, { userId: user.id, scopes });
    const mcpToken = await createTestAccessToken(system.stores, {
      userId: user.id,
      scopes,
      audience: `${system.url}/mcp`,
    });
    const rest = () =>
      measure('GET /v2/me', {
        url: `${system.url}/v2/me`,
        headers: { authorization: `Bearer ${apiToken}` },
        duration: SECONDS,
      });
    const tool = () =>
      measure('POST /mcp tools/call get_me', {
        url: `${system.url}/mcp`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${mcpToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MCP_PROTOCOL_VERSION,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_me', arguments: {} },
        }),
        duration: SECONDS,
      });
    await rest();
    await tool(); // warm-up
    const rests: Measurement[] = [];
    const tools: Measurement[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rests.push(await rest());
      tools.push(await tool());
    }
    const [a, b] = [median(rests), median(tools)];
    console.log(`${ROUNDS} alternating rounds of ${SECONDS} s, 50 connections, medians`);
    printTable([a, b]);
    printRatio(
      'get_me over MCP, throughput relative to GET /v2/me',
      b.requestsPerSecond,
      a.requestsPerSecond,
    );
    const extraUs = Math.round((1 / b.requestsPerSecond - 1 / a.requestsPerSecond) * 1e6);
    console.log(`MCP layer: about ${extraUs} us of server time more per call (at saturation)`);
  } finally {
    await system.close();
  }
}
