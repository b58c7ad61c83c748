import { type Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { findUserById } from '@sched/db/queries/users';
import test from 'ava';
import { agentDocument, setUpDocumentServer } from '../support/agent-documents.ts';
import { setUpChromium } from '../support/browser.ts';
import { insertUser } from '../support/factories.ts';
import { connectMcpClient, TestAgentAuth, toolData } from '../support/mcp.ts';
import { startRedirectReceiver } from '../support/oauth.ts';
import { attendee, FUTURE_YEAR, personalEventType, setAvailability } from '../support/scheduling.ts';
import { setUpWorld } from '../support/world.ts';

// An AI agent end to end (docs/agents.md), one nobody registered: the SDK's own MCP client
// identifies itself by a Client ID Metadata Document this test serves over https (its own CA) on a
// loopback port, which OUTBOUND_PRIVATE_NETWORKS=allow lets the server fetch. AGENT_CLIENTS is the
// default (review): the agent is pending on first use, may be given read scopes only, until an
// administrator approves its document URL; then the SDK's step-up gets BOOKING_WRITE.
// (test/mcp/agent-e2e.test.ts: the same journey with a client registered in settings.)

const documents = setUpDocumentServer(test);

const { system, knex, store, admin, call } = setUpWorld(test, {
  env: { OUTBOUND_PRIVATE_NETWORKS: 'allow' },
});
const chromium = setUpChromium(test);

const PASSWORD = 'a metadata document agent password';
const READ_SCOPES = ['BOOKING_READ', 'EVENT_TYPE_READ', 'PROFILE_READ', 'SCHEDULE_READ'];
const sortedScopes = (scope: string | undefined) => (scope ?? '').split(' ').sort();

test('an MCP agent known by its metadata document: pending ceiling, approval, step-up, booking, refresh', async (t) => {
  const user = await insertScheduler();
  const eventType = await personalEventType(knex(), user.id);
  const receiver = await startRedirectReceiver();
  const metadataUrl = `${documents().origin}/agents/scheduler.json`;
  documents().serve('/agents/scheduler.json', { body: agentDocument(metadataUrl, receiver.redirectUri) });
  const agent = new TestAgentAuth({ metadataUrl }, receiver.redirectUri);
  const context = await chromium().newContext();
  const page = await context.newPage();
  const mcpUrl = `${system.url}/mcp`;
  // One transport for the code exchanges (finishAuth); the session has its own.
  const exchange = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent });

  /** The user's part in Chromium: the latest authorization page, Allow; returns the code. */
  async function consent(expect: { signIn: boolean; unverified: boolean; shows: string[]; hides: string[] }) {
    const url = agent.authorizations.at(-1)!;
    t.is(url.searchParams.get('client_id'), metadataUrl, 'the document URL is the client_id');
    t.is(url.searchParams.get('resource'), mcpUrl, 'the SDK names the /mcp resource');
    await page.goto(url.href);
    if (expect.signIn) {
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    const allow = page.getByRole('button', { name: 'Allow' });
    await allow.waitFor();
    const text = await page.locator('body').innerText();
    t.is(text.includes('Unverified app'), expect.unverified, 'Unverified app while pending only');
    if (expect.unverified) {
      t.true(text.includes(`127.0.0.1:${documents().port}`), 'the client_id host');
      t.true(text.includes('on this computer'), 'the loopback redirect warning');
    }
    for (const scope of expect.shows) t.true(text.includes(scope), `${scope} is asked for`);
    for (const scope of expect.hides) t.false(text.includes(scope), `${scope} is not asked for`);
    await allow.click();
    const callback = await receiver.next();
    t.is(callback.searchParams.get('iss'), system.url);
    return callback.searchParams;
  }

  let client: Client | undefined;
  try {
    // 1. A bare request: 401, discovery; the server's metadata supports documents, so the SDK
    //    uses the document URL as client_id (no registration).
    const first = await connectMcpClient(mcpUrl, { authProvider: agent }).catch((error: unknown) => error);
    t.true(first instanceof UnauthorizedError, String(first));
    t.is(agent.clientInformation()?.client_id, metadataUrl);
    t.deepEqual(sortedScopes(agent.authorizations[0]!.searchParams.get('scope') ?? ''), READ_SCOPES);
    await exchange.finishAuth(
      await consent({ signIn: true, unverified: true, shows: READ_SCOPES, hides: ['BOOKING_WRITE'] }),
    );
    t.is(documents().fetches('/agents/scheduler.json'), 1, 'one fetch, then the cache');
    const stored = await knex()('oauth_clients').where({ id: metadataUrl }).first();
    t.like(stored, { review_status: 'PENDING', registration: 'metadata_document', owner_user_id: null });

    // 2. A token for the /mcp audience; tools/list, get_me, slots.
    const readToken = agent.tokens()!;
    t.deepEqual(sortedScopes(readToken.scope), READ_SCOPES);
    t.truthy(readToken.refresh_token);
    const record = await store().find<{ aud?: string }>('AccessToken', readToken.access_token);
    t.is(record?.aud, mcpUrl);
    ({ client } = await connectMcpClient(mcpUrl, { authProvider: agent }));
    const { tools } = await client.listTools();
    t.true(tools.some((tool) => tool.name === 'create_booking'));
    t.is(toolData(await client.callTool({ name: 'get_me', arguments: {} })).email, user.email);
    const slots = toolData(
      await client.callTool({
        name: 'get_available_slots',
        arguments: {
          eventTypeId: eventType.id,
          start: `${FUTURE_YEAR}-05-06`,
          end: `${FUTURE_YEAR}-05-06`,
          timeZone: 'UTC',
        },
      }),
    );
    const start = Object.values(slots as Record<string, Array<{ start: string }>>).flat()[0]!.start;

    // 3. Booking needs BOOKING_WRITE: the SDK steps up, but a pending agent's ceiling keeps the
    //    write scope off the consent page and out of the token, so the call is refused again.
    const booking = { name: 'create_booking', arguments: { eventTypeId: eventType.id, start, attendee } };
    const refused = await client.callTool(booking).catch((error: unknown) => error);
    t.true(refused instanceof UnauthorizedError, String(refused));
    t.true(agent.authorizations.at(-1)!.searchParams.get('scope')?.split(' ').includes('BOOKING_WRITE'));
    await exchange.finishAuth(
      await consent({ signIn: false, unverified: true, shows: [], hides: ['BOOKING_WRITE'] }),
    );
    t.false(sortedScopes(agent.tokens()!.scope).includes('BOOKING_WRITE'), 'the ceiling holds');
    const stillRefused = await client.callTool(booking).catch((error: unknown) => error);
    t.true(stillRefused instanceof UnauthorizedError, String(stillRefused));

    // 4. An administrator approves the document URL; the step-up now gets BOOKING_WRITE.
    const approved = await call(
      'POST',
      `/v2/admin/oauth-clients/${encodeURIComponent(metadataUrl)}/approve`,
      {
        token: admin.apiKey,
      },
    );
    t.is(approved.status, 200, JSON.stringify(approved.body));
    t.is(approved.body.data.reviewStatus, 'APPROVED');
    await exchange.finishAuth(
      await consent({ signIn: false, unverified: false, shows: ['BOOKING_WRITE'], hides: [] }),
    );
    t.deepEqual(sortedScopes(agent.tokens()!.scope), [...READ_SCOPES, 'BOOKING_WRITE'].sort());
    const created = toolData(await client.callTool(booking));
    t.is(created.status, 'accepted');

    // 5. The access token stops working (as when it expires): the SDK refreshes and cancels.
    const before = agent.tokens()!;
    await store().destroy('AccessToken', before.access_token);
    const cancelled = toolData(
      await client.callTool({ name: 'cancel_booking', arguments: { uid: created.uid } }),
    );
    t.is(cancelled.status, 'cancelled');
    const after = agent.tokens()!;
    t.not(after.access_token, before.access_token);
    t.not(after.refresh_token, before.refresh_token, 'rotated');
    const refreshed = await store().find<{ aud?: string; scope?: string }>('AccessToken', after.access_token);
    t.is(refreshed?.aud, mcpUrl, 'the refreshed token keeps its audience');
    t.regex(refreshed?.scope ?? '', /BOOKING_WRITE/);
  } finally {
    await client?.close();
    await context.close();
    await receiver.close();
  }
});

/** A user with availability who signs in with PASSWORD. */
async function insertScheduler() {
  const made = await insertUser(knex(), { password: PASSWORD });
  await setAvailability(knex(), (await findUserById(knex(), made.id))!);
  return made;
}
