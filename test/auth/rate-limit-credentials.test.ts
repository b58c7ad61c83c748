import test from 'ava';
import { clientCredentials } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// The per-client limits of the token, revocation and introspection endpoints count only requests
// whose client authenticated. A client_id is public (it is in every authorization URL): were
// requests with a wrong secret counted, anyone could use up a client's allowance and lock its
// users out.

const LIMIT = 5;
const {
  system,
  clients: { app },
} = setUpWorld(test, {
  env: { RATE_LIMITS: `token=${LIMIT}/1m,revoke=${LIMIT}/1m,introspect=${LIMIT}/1m` },
  clients: { app: { scopes: ['PROFILE_READ'] } },
});

const ENDPOINTS = [
  ['token', { grant_type: 'refresh_token', refresh_token: 'not-a-token' }],
  ['revoke', { token: 'not-a-token' }],
  ['introspect', { token: 'not-a-token' }],
] as const;

async function send(endpoint: string, form: Record<string, string>) {
  const response = await fetch(`${system.url}/v2/auth/oauth2/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  await response.arrayBuffer();
  return response.status;
}

for (const [endpoint, form] of ENDPOINTS) {
  test.serial(
    `${endpoint}: wrong secrets do not use up the client's allowance; its own requests do`,
    async (t) => {
      const forged = { ...form, client_id: app.client.id, client_secret: 'wrong' };
      for (let i = 0; i < LIMIT * 3; i++) t.is(await send(endpoint, forged), 401);
      const own = { ...form, ...clientCredentials(app) };
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i++) statuses.push(await send(endpoint, own));
      t.false(statuses.slice(0, LIMIT).includes(429), statuses.join(' '));
      t.is(statuses[LIMIT], 429, 'the client’s own requests past the limit');
      t.is(await send(endpoint, forged), 401, 'a wrong secret is still told so, not counted');
    },
  );
}
