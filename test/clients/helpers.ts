import type { TestFn } from 'ava';
import { apiClient, type Call, type Json } from '../api/helpers/http.ts';
import { insertUser, type TestUser } from '../api/helpers/fixtures.ts';
import { later, readThrough } from '../support/read-through.ts';
import { startSmtpServer } from '../support/smtp.ts';
import { startTestSystem, type TestSystem } from '../support/system.ts';

export interface ClientsWorld {
  system: TestSystem;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  call: Call;
  admin: TestUser;
  close(): Promise<void>;
}

/** The whole system sending mail to a real local SMTP server, with one service administrator. */
export async function startClientsWorld(): Promise<ClientsWorld> {
  const smtp = await startSmtpServer();
  const system = await startTestSystem({ SMTP_URL: smtp.url });
  const admin = await insertUser(system.stores.db.knex, { serviceAdmin: true });
  return {
    system,
    smtp,
    call: apiClient(system.url),
    admin,
    close: async () => {
      await system.close();
      await smtp.close();
    },
  };
}

/**
 * The world for the whole file (started in a serial `test.before`, closed in `test.after.always`)
 * and one client owner. Both read through to what the hook made.
 */
export function setUpClientsWorld<Context>(test: TestFn<Context>): { world: ClientsWorld; owner: TestUser } {
  const world = later<ClientsWorld>('the clients world');
  const owner = later<TestUser>('the client owner');
  test.serial.before(async () => {
    world.set(await startClientsWorld());
    owner.set(await insertUser(world.get().system.stores.db.knex));
  });
  test.after.always(async () => {
    await world.peek()?.close();
  });
  return {
    world: readThrough(world.get, { system: true, smtp: true, call: true, admin: true, close: true }),
    owner: readThrough(owner.get, { id: true, email: true, password: true, apiKey: true, user: true }),
  };
}

export const validClient = (overrides: Record<string, unknown> = {}) => ({
  name: 'Calendar Sync',
  redirectUris: ['https://app.example.com/callback'],
  scopes: ['BOOKING_READ', 'PROFILE_READ'],
  logo: 'https://app.example.com/logo.png',
  websiteUrl: 'https://app.example.com',
  purpose: 'Syncs bookings into a calendar',
  ...overrides,
});

/** Creates a client through the API as `owner`; returns the response body's data (with the plain secret). */
export async function createClient(
  world: ClientsWorld,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
) {
  const response = await world.call('POST', '/v2/oauth-clients', {
    token: owner.apiKey,
    body: validClient(overrides),
  });
  if (response.status !== 201)
    throw new Error(`create client: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Json;
}

export async function approve(world: ClientsWorld, clientId: string) {
  const response = await world.call('POST', `/v2/admin/oauth-clients/${clientId}/approve`, {
    token: world.admin.apiKey,
  });
  if (response.status !== 200)
    throw new Error(`approve: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Json;
}

/** An APPROVED client created through the API. */
export async function approvedClient(
  world: ClientsWorld,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
) {
  const created = await createClient(world, owner, overrides);
  await approve(world, created.id);
  return created;
}

/** Subject (RFC 2047 Q/B words decoded) and the whole message with quoted-printable undone. */
export function parseMail(raw: string): { subject: string; body: string } {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  const subject = header
    .replace(/\?=\r?\n[ \t]+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => `%${hex}`),
            'utf8',
          ).toString('utf8'),
    )
    .replace(/\?==\?/g, '');
  return { subject: decodeURIComponentSafe(subject), body: decodeQuotedPrintable(raw) };
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The first received message to `to` whose subject is `subject`, waiting up to 10 s. (The support
 * server's waitFor looks only at the first message to an address; owners here get several.)
 */
export async function waitForMail(
  world: ClientsWorld,
  to: string,
  subject: string,
): Promise<{ raw: string; subject: string; body: string }> {
  const until = Date.now() + 10_000;
  for (;;) {
    for (const mail of world.smtp.received) {
      if (!mail.to.map((a) => a.toLowerCase()).includes(to.toLowerCase())) continue;
      const parsed = parseMail(mail.raw);
      if (parsed.subject === subject) return { raw: mail.raw, ...parsed };
    }
    if (Date.now() > until) throw new Error(`no mail "${subject}" to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Splits a raw MIME message into its parts' content types (lower case). */
export function mimeTypes(raw: string): string[] {
  return [...raw.matchAll(/^content-type:\s*([a-z]+\/[a-z0-9.+-]+)/gim)].map((m) => m[1]!.toLowerCase());
}

/** Undoes quoted-printable soft line breaks and =XX escapes (enough to search the text). */
export function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
