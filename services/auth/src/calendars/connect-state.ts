import { constantTimeEqual, randomToken, sha256Hex } from '@sched/kit/secrets';
import type { OAuthProviderId } from '@sched/calendars/providers/oauth-provider';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';

/**
 * The short-lived records of a calendar connect flow, in the token store under the SHA-256 of
 * their random ids (someone reading Redis cannot replay them):
 *
 * - the OAuth `state` (10 minutes, single use): who connects which provider, the PKCE verifier,
 *   where to return, and the hash of a nonce kept in an HttpOnly cookie of the browser that
 *   started, so a callback URL carried to another browser (login CSRF on the connection) fails;
 * - a ticket (10 minutes, single use) that lets the onboarding step, inside a third-party frame
 *   whose cookies are partitioned, open the provider in a first-party window for its signed-in
 *   user: the frame's page mints it for that user; the window shows whose account it is and
 *   spends it on the user's confirmation (a form with a CSRF token), to start the flow.
 */
export const CONNECT_TTL_SECONDS = 10 * 60;
const STATE_MODEL = 'CalendarConnectState';
const TICKET_MODEL = 'CalendarConnectTicket';
/** The browser binding of the state: a nonce, sent back only to the callback's path. */
export const BINDING_COOKIE = 'auth.calendar-connect';
export const CALENDAR_FLOW_PATH = '/auth/calendars/';

/** Where the flow ends: the settings page, or the onboarding step's window. */
export type ConnectReturn = 'settings' | 'onboarding';

export interface ConnectStart {
  userId: number;
  provider: OAuthProviderId;
  /** The PKCE verifier (its challenge went to the provider). */
  verifier: string;
  returnTo: ConnectReturn;
}

export interface ConnectState extends ConnectStart {
  /** SHA-256 of the browser's binding nonce. */
  binding: string;
  [key: string]: unknown;
}

interface Ticket {
  userId: number;
  provider: OAuthProviderId;
  [key: string]: unknown;
}

const ID = /^[A-Za-z0-9_-]{20,100}$/;

/** This browser's binding nonce (kept when it has one, so two tabs can connect at once). */
function bindingNonce(deps: AuthDeps, ctx: Context): string {
  const existing = ctx.cookies.get(BINDING_COOKIE, { signed: true });
  if (existing && ID.test(existing)) return existing;
  const nonce = randomToken(32);
  ctx.cookies.set(BINDING_COOKIE, nonce, {
    signed: true,
    httpOnly: true,
    // Lax: the provider's redirect back is a top-level GET navigation, which carries it.
    sameSite: 'lax',
    secure: deps.csrf.secure,
    path: CALENDAR_FLOW_PATH,
    maxAge: CONNECT_TTL_SECONDS * 1000,
    overwrite: true,
  });
  return nonce;
}

export async function saveConnectState(deps: AuthDeps, ctx: Context, record: ConnectStart): Promise<string> {
  const state = randomToken(32);
  const stored: ConnectState = { ...record, binding: sha256Hex(bindingNonce(deps, ctx)) };
  await deps.runtime.stores.tokenStore.upsert(STATE_MODEL, sha256Hex(state), stored, CONNECT_TTL_SECONDS);
  return state;
}

/** The state's record, once, when this browser started it; null otherwise (unknown, used, expired, other browser). */
export async function takeConnectState(
  deps: AuthDeps,
  ctx: Context,
  state: string,
): Promise<ConnectState | null> {
  if (!ID.test(state)) return null;
  const store = deps.runtime.stores.tokenStore;
  const id = sha256Hex(state);
  const record = await store.find<ConnectState>(STATE_MODEL, id);
  if (!record || !(await store.consume(STATE_MODEL, id))) return null;
  await store.destroy(STATE_MODEL, id);
  const nonce = ctx.cookies.get(BINDING_COOKIE, { signed: true });
  if (!nonce || !constantTimeEqual(sha256Hex(nonce), record.binding)) return null;
  return record;
}

export async function mintTicket(deps: AuthDeps, userId: number, provider: OAuthProviderId): Promise<string> {
  const ticket = randomToken(32);
  await deps.runtime.stores.tokenStore.upsert(
    TICKET_MODEL,
    sha256Hex(ticket),
    { userId, provider } satisfies Ticket,
    CONNECT_TTL_SECONDS,
  );
  return ticket;
}

/** The ticket's record and store id when the ticket is well-formed, known, live and for this provider. */
async function findTicket(
  deps: AuthDeps,
  ticket: string,
  provider: OAuthProviderId,
): Promise<{ id: string; record: Ticket } | null> {
  if (!ID.test(ticket)) return null;
  const id = sha256Hex(ticket);
  const record = await deps.runtime.stores.tokenStore.find<Ticket>(TICKET_MODEL, id);
  return record && record.provider === provider ? { id, record } : null;
}

/** The ticket's user without spending it (the confirmation page); null as `spendTicket` would be. */
export async function peekTicket(
  deps: AuthDeps,
  ticket: string,
  provider: OAuthProviderId,
): Promise<number | null> {
  const found = await findTicket(deps, ticket, provider);
  return found && !found.record.consumed ? found.record.userId : null;
}

/** The ticket's user, once, for this provider; null when unknown, used, expired or for another provider. */
export async function spendTicket(
  deps: AuthDeps,
  ticket: string,
  provider: OAuthProviderId,
): Promise<number | null> {
  const found = await findTicket(deps, ticket, provider);
  const store = deps.runtime.stores.tokenStore;
  if (!found || !(await store.consume(TICKET_MODEL, found.id))) return null;
  await store.destroy(TICKET_MODEL, found.id);
  return found.record.userId;
}
