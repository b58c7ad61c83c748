import { insertClient, insertUser } from '../../support/factories.ts';
import { FlowBrowser, issueTokens } from '../../support/oauth.ts';
import { startTestSystem } from '../../support/system.ts';
import { announceReady, countServerRequests } from '../pinned/server-side.ts';
import type { Chain } from '../refresh-load.ts';
import type { TokenServerReady } from './bare-oidc-provider.ts';

/**
 * Our side of the token-endpoint benchmark (a process of its own): the whole system as the test
 * kit starts it (DATABASE_URL / REDIS_URL as given, else PGlite and the SQL token store), with
 * BENCH_CLIENTS confidential clients (10) and grants obtained through the real authorization
 * flow, enough for a pool of about 300 refresh-token chains. The token rate limit is lifted (the
 * limiter still counts every request): 10 clients would otherwise meet it. Counter `ours`.
 */

const SCOPE = 'PROFILE_READ';
const clientCount = Number(process.env.BENCH_CLIENTS ?? 10);
const grantsPerClient = Math.max(1, Math.ceil(300 / clientCount));

const system = await startTestSystem({ RATE_LIMITS: 'token=100000000/1m' });
countServerRequests('ours', system.server.server);
const knex = system.stores.db.knex;
const user = await insertUser(knex);
const pool: Chain[] = [];
// A few signed-in browsers at once: 1,000 clients' flows one after another took minutes.
const BROWSERS = 4;
let nextClient = 0;
let clientsReady = 0;
async function issueForClients(): Promise<void> {
  const browser = new FlowBrowser(system.url);
  while (nextClient < clientCount) {
    nextClient++;
    // One owner for all: a user per client would hash a password per client (slow with 1,000).
    const client = await insertClient(knex, { scopes: [SCOPE], ownerUserId: user.id });
    for (let g = 0; g < grantsPerClient; g++) {
      const tokens = await issueTokens(system.url, client, user, [SCOPE], browser);
      pool.push({ clientId: client.client.id, secret: client.secret!, refreshToken: tokens.refresh_token });
    }
    clientsReady++;
    if (clientsReady % 100 === 0)
      process.stderr.write(`token-endpoint server: ${clientsReady} clients ready\n`);
  }
}
await Promise.all(Array.from({ length: BROWSERS }, issueForClients));

const ready: TokenServerReady = {
  url: system.url,
  path: '/v2/auth/oauth2/token',
  pool,
  backend: `${system.stores.db.kind} + ${system.stores.tokenStore.kind} token store`,
};
announceReady(ready, () => system.close());
