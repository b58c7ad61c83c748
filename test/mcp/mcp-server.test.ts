import test from 'ava';
import { findUserById } from '@sched/db/queries/users';
import { buildScene, setUpWorld } from '../support/world.ts';
import { insertUser, type TestUser } from '../support/factories.ts';
import {
  attendee,
  FUTURE_YEAR,
  personalEventType,
  setAvailability,
  teamEventType,
} from '../support/scheduling.ts';
import { createTestAccessToken } from '../support/tokens.ts';
import { callToolRaw, connectMcpClient, mcpRequest, toolData } from '../support/mcp.ts';

const { system, call } = setUpWorld(test);
let user: TestUser;
const mcpUrl = () => `${system.url}/mcp`;
const READ = ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ'];

test.before(async () => {
  user = await insertUser(system.stores.db.knex);
});

const mcpToken = (scopes: readonly string[] = READ, userId = user.id) =>
  createTestAccessToken(system.stores, { userId, scopes, audience: `${system.url}/mcp` });

const TOOLS = [
  'cancel_booking',
  'create_booking',
  'get_available_slots',
  'get_booking_limits',
  'get_me',
  'list_bookings',
  'list_event_types',
  'list_team_bookings',
  'list_teams',
  'reschedule_booking',
  'update_booking_limits',
];

test('tools/list with the SDK client: the eleven tools, input schemas from the route declarations', async (t) => {
  const { client } = await connectMcpClient(mcpUrl(), { token: await mcpToken() });
  try {
    const { tools } = await client.listTools();
    t.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
    const create = tools.find((tool) => tool.name === 'create_booking')!;
    t.deepEqual([...(create.inputSchema.required ?? [])].sort(), ['attendee', 'eventTypeId', 'start']);
    const cancel = tools.find((tool) => tool.name === 'cancel_booking')!;
    t.truthy(cancel.inputSchema.properties?.['uid'], 'path parameter');
    t.truthy(cancel.inputSchema.properties?.['cancellationReason'], 'body field');
    const slots = tools.find((tool) => tool.name === 'get_available_slots')!;
    t.deepEqual([...(slots.inputSchema.required ?? [])].sort(), ['end', 'eventTypeId', 'start']);
  } finally {
    await client.close();
  }
});

test('get_me answers what GET /v2/me answers', async (t) => {
  const token = await mcpToken();
  const { client } = await connectMcpClient(mcpUrl(), { token });
  try {
    const me = toolData(await client.callTool({ name: 'get_me', arguments: {} }));
    const row = await findUserById(system.stores.db.knex, user.id);
    t.is(me.id, user.id);
    t.is(me.email, row!.email);
  } finally {
    await client.close();
  }
});

test('a tool whose scope the token lacks: 403 insufficient_scope naming the scope and the metadata', async (t) => {
  const answer = await callToolRaw(mcpUrl(), await mcpToken(['BOOKING_READ']), 'get_me');
  t.is(answer.status, 403);
  t.is(
    answer.headers.get('www-authenticate'),
    `Bearer error="insufficient_scope", scope="PROFILE_READ", resource_metadata="${system.url}/.well-known/oauth-protected-resource/mcp"`,
  );
  t.regex(answer.body.error.message, /Required: PROFILE_READ/);
});

test('create, reschedule and cancel need BOOKING_WRITE over MCP although their REST endpoints are public', async (t) => {
  const eventType = await personalEventType(system.stores.db.knex, user.id);
  const token = await mcpToken();
  for (const name of ['create_booking', 'reschedule_booking', 'cancel_booking']) {
    const answer = await callToolRaw(mcpUrl(), token, name, { uid: 'abc', eventTypeId: eventType.id });
    t.is(answer.status, 403, name);
    t.regex(
      answer.headers.get('www-authenticate') ?? '',
      /error="insufficient_scope", scope="BOOKING_WRITE"/,
    );
  }
  // The same call over /v2 with no credential at all is allowed (public): the 403 is MCP's rule.
  const rest = await call('POST', '/v2/bookings/abc/cancel', { body: {} });
  t.is(rest.status, 404);
});

test('booking through the tools: slots, create, list, reschedule, cancel', async (t) => {
  const knex = system.stores.db.knex;
  const host = await insertUser(knex);
  const row = await findUserById(knex, host.id);
  await setAvailability(knex, row!);
  const eventType = await personalEventType(knex, host.id);
  const token = await mcpToken([...READ, 'BOOKING_WRITE'], host.id);
  const { client } = await connectMcpClient(mcpUrl(), { token });
  try {
    const types = toolData(await client.callTool({ name: 'list_event_types', arguments: {} }));
    t.deepEqual(
      types.map((type: { id: number }) => type.id),
      [eventType.id],
    );
    const slots = toolData(
      await client.callTool({
        name: 'get_available_slots',
        // A number where the query string has text: accepted (models send numbers).
        arguments: {
          eventTypeId: eventType.id,
          start: `${FUTURE_YEAR}-03-03`,
          end: `${FUTURE_YEAR}-03-04`,
          timeZone: 'UTC',
        },
      }),
    );
    const starts: string[] = Object.values(slots as Record<string, Array<{ start: string }>>)
      .flat()
      .map((slot) => slot.start);
    t.true(starts.length > 2);
    const booking = toolData(
      await client.callTool({
        name: 'create_booking',
        arguments: { eventTypeId: eventType.id, start: starts[0], attendee },
      }),
    );
    t.is(booking.status, 'accepted');
    const listed = toolData(
      await client.callTool({ name: 'list_bookings', arguments: { status: 'accepted' } }),
    );
    t.deepEqual(
      listed.map((b: { uid: string }) => b.uid),
      [booking.uid],
    );
    const moved = toolData(
      await client.callTool({
        name: 'reschedule_booking',
        arguments: { uid: booking.uid, start: starts[2] },
      }),
    );
    t.not(moved.uid, booking.uid);
    const cancelled = toolData(
      await client.callTool({
        name: 'cancel_booking',
        arguments: { uid: moved.uid, cancellationReason: 'no longer needed' },
      }),
    );
    t.is(cancelled.status, 'cancelled');
    // The same rules as /v2: cancelling again is the API's 409, as a tool error with its message.
    const again = await client.callTool({ name: 'cancel_booking', arguments: { uid: moved.uid } });
    t.true(again.isError);
    t.regex(JSON.stringify(again.content), /already cancelled/i);
  } finally {
    await client.close();
  }
});

test('bad input and API refusals are tool errors with the API message, never 500', async (t) => {
  const token = await mcpToken();
  const unknownType = await callToolRaw(mcpUrl(), token, 'get_available_slots', {
    eventTypeId: 999999999,
    start: `${FUTURE_YEAR}-01-01`,
    end: `${FUTURE_YEAR}-01-02`,
  });
  t.is(unknownType.status, 200);
  t.true(unknownType.body.result.isError);
  t.is(unknownType.body.result.content[0].text, 'Event type not found');
  t.is(unknownType.body.result.structuredContent.error.code, 'NotFound');

  const invalid = await callToolRaw(mcpUrl(), token, 'get_available_slots', {
    eventTypeId: 'x',
    start: 'soon',
  });
  t.true(invalid.body.result.isError);
  t.is(invalid.body.result.structuredContent.error.code, 'BadRequest');
  t.regex(invalid.body.result.content[0].text, /^Invalid query: /);

  const unknownField = await callToolRaw(mcpUrl(), token, 'get_me', { surprise: 1 });
  t.true(unknownField.body.result.isError);
  t.is(unknownField.body.result.structuredContent.error.code, 'BadRequest');

  const unknownTool = await callToolRaw(mcpUrl(), token, 'drop_tables');
  t.is(unknownTool.status, 200);
  t.truthy(unknownTool.body.error, 'a JSON-RPC error');
});

test('team tools pass the same role and PBAC checks as /v2', async (t) => {
  const knex = system.stores.db.knex;
  const scene = await buildScene(knex, { member: { team: 'MEMBER' } });
  const outsider = await insertUser(knex);
  const teamType = await teamEventType(knex, scene.teamId, [scene.users.member.id]);
  t.truthy(teamType.id);
  const scopes = ['TEAM_PROFILE_READ', 'TEAM_BOOKING_READ'];
  const member = await mcpToken(scopes, scene.users.member.id);
  const listed = await callToolRaw(mcpUrl(), member, 'list_team_bookings', { teamId: scene.teamId });
  t.false(Boolean(listed.body.result.isError), JSON.stringify(listed.body));
  t.deepEqual(listed.body.result.structuredContent.data, []);
  const teams = await callToolRaw(mcpUrl(), member, 'list_teams');
  t.deepEqual(
    teams.body.result.structuredContent.data.map((team: { id: number }) => team.id),
    [scene.teamId],
  );
  const refused = await callToolRaw(mcpUrl(), await mcpToken(scopes, outsider.id), 'list_team_bookings', {
    teamId: scene.teamId,
  });
  t.true(refused.body.result.isError);
  t.is(refused.body.result.structuredContent.error.code, 'Forbidden');
  // The REST endpoint the tool stands for answers the same.
  const rest = await call('GET', `/v2/teams/${scene.teamId}/bookings`, { token: outsider.apiKey });
  t.is(rest.status, 403);
});

test('GET and DELETE /mcp: 405 (stateless server, no event stream, no sessions)', async (t) => {
  const token = await mcpToken();
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${token}` } });
    t.is(response.status, 405, method);
    t.is(response.headers.get('allow'), 'POST');
  }
});

test('initialize answers without a session id (stateless)', async (t) => {
  const answer = await mcpRequest(
    mcpUrl(),
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    { token: await mcpToken() },
  );
  t.is(answer.status, 200);
  t.is(answer.headers.get('mcp-session-id'), null);
  t.truthy(answer.body.result.capabilities.tools);
});

test('over MCP the scopes of legacy tokens are checked too (their /v2 calls are not)', async (t) => {
  const legacy = await createTestAccessToken(system.stores, {
    userId: user.id,
    legacy: true,
    audience: `${system.url}/mcp`,
  });
  const answer = await callToolRaw(mcpUrl(), legacy, 'get_me');
  t.is(answer.status, 403);
  t.regex(answer.headers.get('www-authenticate') ?? '', /scope="PROFILE_READ"/);
  const slots = await callToolRaw(mcpUrl(), legacy, 'get_available_slots', {
    eventTypeId: 999999999,
    start: `${FUTURE_YEAR}-01-01`,
    end: `${FUTURE_YEAR}-01-01`,
  });
  t.is(slots.status, 200, 'a tool over a public route without scope needs only a valid /mcp token');
  t.is(slots.body.result.content[0].text, 'Event type not found');
});

test('a body that is not JSON-RPC is a 4xx, never a 500; a batch is checked for scopes as a whole', async (t) => {
  const token = await mcpToken();
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  for (const body of ['{}', '"hello"', '{"jsonrpc":"2.0","id":1,"method":7}']) {
    const response = await fetch(mcpUrl(), { method: 'POST', headers, body });
    t.true(response.status >= 400 && response.status < 500, `${body}: ${response.status}`);
  }
  // An empty batch asks nothing: accepted with no answer (the SDK's 202).
  t.is((await fetch(mcpUrl(), { method: 'POST', headers, body: '[]' })).status, 202);
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_me', arguments: {} } },
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'cancel_booking', arguments: { uid: 'x' } },
    },
  ];
  const response = await fetch(mcpUrl(), { method: 'POST', headers, body: JSON.stringify(batch) });
  t.is(response.status, 403);
  t.regex(response.headers.get('www-authenticate') ?? '', /scope="BOOKING_WRITE"/);
});
