import { suspendClient } from '@sched/clients/suspend';
import type { Runtime } from '@sched/runtime/runtime';
import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// A suspended agent is PENDING again: whatever users allowed it while it was approved, a new
// authorization gives it no more than AGENT_PENDING_SCOPES, also when the user's earlier consent is
// remembered or carried over by step-up. Step-up used to carry the earlier write scopes into the
// pending agent's grant (only the consent step's last check stopped it, with an error page, so the
// user could not authorize the agent at all any more).

const documents = setUpDocumentServer(test);
const REDIRECT = 'http://127.0.0.1:49152/callback';

const { system, user, admin, call } = setUpWorld(test, {
  env: { OUTBOUND_PRIVATE_NETWORKS: 'allow' },
});
const mcp = () => `${system.url}/mcp`;

let served = 0;
function newAgent(): string {
  const path = `/suspended/${++served}.json`;
  const url = `https://127.0.0.1:${documents().port}${path}`;
  documents().serve(path, { body: agentDocument(url, REDIRECT) });
  return url;
}

async function tokensFor(clientId: string, scope: string, browser: FlowBrowser) {
  const pkce = pkcePair();
  const url = authorizeUrl(system.url, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'st',
    code_challenge: pkce.challenge,
    scope,
    resource: mcp(),
  });
  const { outcome } = await authorizeInBrowser(system.url, url, { user, browser });
  if (outcome.kind !== 'redirect' || !outcome.url.searchParams.get('code'))
    throw new Error(`no code: ${outcome.kind === 'page' ? outcome.html : outcome.url.href}`);
  const answer = await tokenRequest(system.url, {
    client_id: clientId,
    grant_type: 'authorization_code',
    code: outcome.url.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: pkce.verifier,
  });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return answer.body as { access_token: string; scope: string };
}

const sorted = (scope: string) => scope.split(' ').sort();

async function approvedThenSuspended(browser: FlowBrowser): Promise<string> {
  const clientId = newAgent();
  await tokensFor(clientId, 'PROFILE_READ', browser);
  const approved = await call('POST', `/v2/admin/oauth-clients/${encodeURIComponent(clientId)}/approve`, {
    token: admin.apiKey,
  });
  if (approved.status !== 200) throw new Error(JSON.stringify(approved.body));
  const wide = await tokensFor(clientId, 'PROFILE_READ BOOKING_WRITE', browser);
  if (!wide.scope.includes('BOOKING_WRITE'))
    throw new Error(`approved agent not given BOOKING_WRITE: ${wide.scope}`);
  const runtime = { stores: system.stores, config: system.config } as unknown as Runtime;
  await suspendClient(runtime, { userId: admin.id, serviceAdmin: true }, clientId, 'Reported');
  return clientId;
}

test('remembered consent does not give a suspended agent the write scopes it was allowed while approved', async (t) => {
  const browser = new FlowBrowser(system.url);
  const clientId = await approvedThenSuspended(browser);
  const again = await tokensFor(clientId, 'PROFILE_READ', browser);
  t.deepEqual(sorted(again.scope), ['PROFILE_READ']);
});

test('step-up carries only the earlier scopes within the pending ceiling of a suspended agent', async (t) => {
  const browser = new FlowBrowser(system.url);
  const clientId = await approvedThenSuspended(browser);
  // A scope not allowed before: the consent page, then a token with the earlier scopes that the
  // ceiling still allows (PROFILE_READ), not BOOKING_WRITE, and no error page.
  const stepped = await tokensFor(clientId, 'EVENT_TYPE_READ', browser);
  t.deepEqual(sorted(stepped.scope), ['EVENT_TYPE_READ', 'PROFILE_READ']);
});
