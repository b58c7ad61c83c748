import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { authorizeInBrowser, authorizeUrl, FlowBrowser, pkcePair } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// AGENT_CLIENTS other than the default `review` (docs/operators-agents.md), one system each:
// `approved-only`: an unknown agent gets the not-approved page until an administrator approves its
// document URL, which works before the agent's first use too; `off`: agents are unknown clients,
// their documents are never fetched, and registration stays closed even with DCR_ENABLED.

const documents = setUpDocumentServer(test);
const REDIRECT = 'http://127.0.0.1:49154/callback';

const approvedOnly = setUpWorld(test, {
  env: { AGENT_CLIENTS: 'approved-only', OUTBOUND_PRIVATE_NETWORKS: 'allow' },
});
const off = setUpWorld(test, {
  env: { AGENT_CLIENTS: 'off', OUTBOUND_PRIVATE_NETWORKS: 'allow', DCR_ENABLED: 'true' },
});

let served = 0;
function newAgent(): { clientId: string; path: string } {
  const path = `/policy/${++served}.json`;
  const clientId = `${documents().origin}${path}`;
  documents().serve(path, { body: agentDocument(clientId, REDIRECT, { client_name: 'Policy Agent' }) });
  return { clientId, path };
}

const authorizeAt = (url: string, clientId: string) =>
  authorizeUrl(url, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'PROFILE_READ',
    state: 's',
    code_challenge: pkcePair().challenge,
  });

test('approved-only: an unknown agent gets the not-approved page and waits in the review queue', async (t) => {
  const { clientId } = newAgent();
  const page = await new FlowBrowser(approvedOnly.system.url).open(
    authorizeAt(approvedOnly.system.url, clientId),
  );
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /Application not approved yet/);
  const row = await approvedOnly.knex()('oauth_clients').where({ id: clientId }).first();
  t.like(row, { review_status: 'PENDING', registration: 'metadata_document' });
});

test('approved-only: an administrator approves a document URL before its first use, then it works', async (t) => {
  const { clientId } = newAgent();
  const approved = await approvedOnly.call(
    'POST',
    `/v2/admin/oauth-clients/${encodeURIComponent(clientId)}/approve`,
    {
      token: approvedOnly.admin.apiKey,
    },
  );
  t.is(approved.status, 200, JSON.stringify(approved.body));
  t.like(approved.body.data, { id: clientId, reviewStatus: 'APPROVED', registration: 'metadata_document' });

  const { outcome, consentShown } = await authorizeInBrowser(
    approvedOnly.system.url,
    authorizeAt(approvedOnly.system.url, clientId),
    { user: approvedOnly.user },
  );
  t.true(consentShown);
  t.is(outcome.kind, 'redirect');
  const row = await approvedOnly.knex()('oauth_clients').where({ id: clientId }).first();
  t.is(row.name, 'Policy Agent', 'the name comes from the document once it is read');
});

test('approved-only: approving something that is not a document URL is a 400', async (t) => {
  const answer = await approvedOnly.call(
    'POST',
    `/v2/admin/oauth-clients/${encodeURIComponent('https://a b/')}/approve`,
    {
      token: approvedOnly.admin.apiKey,
    },
  );
  t.is(answer.status, 400);
  t.regex(answer.body.error.message, /not a valid client metadata document URL/);
});

test('off: an agent is an unknown application and its document is never fetched', async (t) => {
  const { clientId, path } = newAgent();
  const page = await new FlowBrowser(off.system.url).open(authorizeAt(off.system.url, clientId));
  t.is(page.kind === 'page' ? page.status : 0, 400);
  t.regex(page.kind === 'page' ? page.html : '', /No application is registered/);
  t.is(documents().fetches(path), 0);
  t.is(await off.knex()('oauth_clients').where({ id: clientId }).first(), undefined);
});

test('off: no client metadata documents in discovery, and registration stays closed', async (t) => {
  const document = (await (
    await fetch(new URL('/.well-known/oauth-authorization-server', off.system.url))
  ).json()) as Record<string, unknown>;
  t.not(document.client_id_metadata_document_supported, true);
  t.is(document.registration_endpoint, undefined);
  const answer = await fetch(new URL('/v2/auth/oauth2/register', off.system.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  t.is(answer.status, 404);
});
