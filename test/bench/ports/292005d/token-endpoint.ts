// Port of main's test/bench/servers/token-endpoint.ts to this (pre-index) build, for the pinned
// harness of main: same ready data, same request counter, same number of chains. Not committed.
import { createTestClient, createTestUser, FlowBrowser, issueTokens } from '../../support/oauth.ts';
import { startTestSystem } from '../../support/system.ts';
import { announceReady, countServerRequests } from '../pinned/server-side.ts';

interface Chain {
  clientId: string;
  secret: string;
  refreshToken: string;
}

const SCOPE = 'PROFILE_READ';
const clientCount = Number(process.env.BENCH_CLIENTS ?? 10);
const grantsPerClient = Math.max(1, Math.ceil(300 / clientCount));

// This build's token rate limit is a constant (lifted in services/auth/src/http/rate-limit.ts here).
const system = await startTestSystem();
countServerRequests('ours', system.server.server);
const knex = system.stores.db.knex;
const user = await createTestUser(knex);
const pool: Chain[] = [];
const BROWSERS = 4;
let nextClient = 0;
async function issueForClients(): Promise<void> {
  const browser = new FlowBrowser(system.url);
  while (nextClient < clientCount) {
    nextClient++;
    const client = await createTestClient(knex, { scopes: [SCOPE], ownerUserId: user.user.id });
    for (let g = 0; g < grantsPerClient; g++) {
      const tokens = await issueTokens(system.url, client, user, [SCOPE], browser);
      pool.push({ clientId: client.client.id, secret: client.secret!, refreshToken: tokens.refresh_token });
    }
  }
}
await Promise.all(Array.from({ length: BROWSERS }, issueForClients));

announceReady(
  {
    url: system.url,
    path: '/v2/auth/oauth2/token',
    pool,
    backend: `${system.stores.db.kind} + ${system.stores.tokenStore.kind} token store (292005d)`,
  },
  () => system.close(),
);
