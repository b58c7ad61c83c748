import { type Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { findUserById } from '@sched/db/queries/users';
import type { TokenStore } from '@sched/db/token-store/types';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import type { Browser } from '../support/browser.ts';
import { insertClient, insertUser } from '../support/factories.ts';
import { connectMcpClient, TestAgentAuth, toolData } from '../support/mcp.ts';
import { startRedirectReceiver } from '../support/oauth.ts';
import { attendee, FUTURE_YEAR, personalEventType, setAvailability } from '../support/scheduling.ts';

export interface JourneyPlace {
  /** The public origin (all-in-one process, or the gateway). */
  url: string;
  knex: Knex;
  store: TokenStore;
  browser: Browser;
}

const PASSWORD = 'an agent journey password';

/**
 * What an MCP agent does with the SDK's own client and OAuth support: connect (a bare 401 leads it
 * to the resource and authorization server metadata), authorization in Chromium (sign in, Allow),
 * token for the /mcp audience, tools/list, get_me, slots, a booking refused for scope, step-up to
 * BOOKING_WRITE (consent again, the earlier scopes kept), booking, cancel, and a refresh when the
 * access token stops working. The client was registered the normal way and approved.
 */
export async function agentJourney(t: ExecutionContext, place: JourneyPlace): Promise<void> {
  const { knex } = place;
  const user = await insertUser(knex, { password: PASSWORD });
  const row = (await findUserById(knex, user.id))!;
  await setAvailability(knex, row);
  const eventType = await personalEventType(knex, user.id);
  const registered = await insertClient(knex, {
    type: 'public',
    name: 'Scheduling agent',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ', 'BOOKING_WRITE'],
  });
  const receiver = await startRedirectReceiver();
  const agent = new TestAgentAuth(registered.client.id, receiver.redirectUri);
  const context = await place.browser.newContext();
  const page = await context.newPage();
  const mcpUrl = `${place.url}/mcp`;

  /** The user's part: the authorization page in Chromium; returns the code the redirect carried. */
  async function consentInBrowser(expectSignIn: boolean): Promise<URLSearchParams> {
    const url = agent.authorizations.at(-1)!;
    t.is(url.searchParams.get('resource'), mcpUrl, 'the SDK names the /mcp resource');
    await page.goto(url.href);
    if (expectSignIn) {
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = await receiver.next();
    t.is(callback.searchParams.get('iss'), place.url);
    t.truthy(callback.searchParams.get('code'));
    return callback.searchParams;
  }

  let client: Client | undefined;
  try {
    // 1. A bare request: 401, discovery, authorization URL for the metadata's read scopes.
    const first = await connectMcpClient(mcpUrl, { authProvider: agent }).catch((error: unknown) => error);
    t.true(first instanceof UnauthorizedError, String(first));
    const authorization = agent.authorizations[0]!;
    t.is(new URL(authorization.href).pathname, '/auth/oauth2/authorize');
    t.is(authorization.searchParams.get('scope'), 'PROFILE_READ EVENT_TYPE_READ SCHEDULE_READ BOOKING_READ');
    t.is(authorization.searchParams.get('code_challenge_method'), 'S256');
    const code = await consentInBrowser(true);

    // 2. The code for a token (the SDK sends resource too), then a working session.
    const exchange = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent });
    await exchange.finishAuth(code);
    const readToken = agent.tokens()!;
    t.is(readToken.scope, 'PROFILE_READ EVENT_TYPE_READ SCHEDULE_READ BOOKING_READ');
    t.truthy(readToken.refresh_token, 'public agent clients get refresh tokens');
    const record = await place.store.find<{ aud?: string }>('AccessToken', readToken.access_token);
    t.is(record?.aud, mcpUrl);
    ({ client } = await connectMcpClient(mcpUrl, { authProvider: agent }));

    const { tools } = await client.listTools();
    t.is(tools.length, 11);
    const me = toolData(await client.callTool({ name: 'get_me', arguments: {} }));
    t.is(me.email, user.email);
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

    // 3. Booking needs BOOKING_WRITE: 403 insufficient_scope, the SDK asks for it (step-up).
    const booking = { name: 'create_booking', arguments: { eventTypeId: eventType.id, start, attendee } };
    const refused = await client.callTool(booking).catch((error: unknown) => error);
    t.true(refused instanceof UnauthorizedError, String(refused));
    const stepUp = agent.authorizations.at(-1)!;
    // The client asks for what it had and what the call needs (SEP-2350 union).
    t.true(stepUp.searchParams.get('scope')?.split(' ').includes('BOOKING_WRITE'));
    const writeCode = await consentInBrowser(false);
    await exchange.finishAuth(writeCode);
    t.deepEqual(agent.tokens()!.scope?.split(' ').sort(), [
      'BOOKING_READ',
      'BOOKING_WRITE',
      'EVENT_TYPE_READ',
      'PROFILE_READ',
      'SCHEDULE_READ',
    ]);
    const created = toolData(await client.callTool(booking));
    t.is(created.status, 'accepted');

    // 4. The access token stops working (as when it expires): the SDK refreshes and goes on.
    const before = agent.tokens()!;
    await place.store.destroy('AccessToken', before.access_token);
    const cancelled = toolData(
      await client.callTool({ name: 'cancel_booking', arguments: { uid: created.uid } }),
    );
    t.is(cancelled.status, 'cancelled');
    const after = agent.tokens()!;
    t.not(after.access_token, before.access_token);
    t.not(after.refresh_token, before.refresh_token, 'rotated');
    const refreshed = await place.store.find<{ aud?: string; scope?: string }>(
      'AccessToken',
      after.access_token,
    );
    t.is(refreshed?.aud, mcpUrl, 'the refreshed token keeps its audience');
    t.regex(refreshed?.scope ?? '', /BOOKING_WRITE/);
  } finally {
    await client?.close();
    await context.close();
    await receiver.close();
  }
}
