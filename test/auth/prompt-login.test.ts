import { randomBytes } from 'node:crypto';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { authorizeUrl, FlowBrowser, pkcePair, tokenRequest, clientCredentials } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { page, text } from './accounts.ts';

// `prompt=login` with a different account than the current session signs the old one out and
// continues as the new one (oidc-provider alone would send the browser to its end-session
// confirmation, which this server does not serve: a 404, the old account still in).

const world = setUpWorld(test, { clients: { app: {} } });

function params(prompt?: string) {
  const app = world.clients.app;
  const pkce = pkcePair();
  return {
    pkce,
    url: authorizeUrl(world.system.url, {
      client_id: app.client.id,
      redirect_uri: app.redirectUri,
      scope: app.client.scopes.join(' '),
      state: randomBytes(6).toString('hex'),
      code_challenge: pkce.challenge,
      ...(prompt ? { prompt } : {}),
    }),
  };
}

/** Signs in through an authorization (consent allowed) and returns the code's redirect. */
async function authorizeAs(browser: FlowBrowser, user: { email: string; password: string }, prompt?: string) {
  const { url, pkce } = params(prompt);
  let step = await browser.open(url);
  if (step.kind === 'page' && step.html.includes('/signin"')) {
    step = await browser.submit(step, '/signin', { email: user.email, password: user.password });
  }
  if (step.kind === 'page' && step.html.includes('/consent"')) {
    step = await browser.submit(step, '/consent', { decision: 'allow' });
  }
  return { step, pkce };
}

async function accountOfCode(code: string, verifier: string): Promise<number> {
  const app = world.clients.app;
  const tokens = await tokenRequest(world.system.url, {
    ...clientCredentials(app),
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: verifier,
  });
  const me = await world.call('GET', '/v2/me', { token: String(tokens.body.access_token) });
  return me.body.data.id as number;
}

test('prompt=login as another account signs the old one out and continues as the new one', async (t) => {
  const first = await insertUser(world.knex());
  const second = await insertUser(world.knex());
  const browser = new FlowBrowser(world.system.url);
  const signedIn = await authorizeAs(browser, first);
  t.is(signedIn.step.kind, 'redirect');

  const again = await authorizeAs(browser, second, 'login');
  t.is(
    again.step.kind,
    'redirect',
    again.step.kind === 'page' ? `${again.step.status} ${text(again.step.html)}` : '',
  );
  if (again.step.kind !== 'redirect') return;
  const code = again.step.url.searchParams.get('code');
  t.truthy(code);
  t.is(await accountOfCode(code!, again.pkce.verifier), second.id, 'the code is the new account');

  // The browser's session is the new account's: settings show it, and no sign-in is asked for.
  const settings = page(await browser.open('/auth/settings'));
  t.is(settings.url.pathname, '/auth/settings');
  t.true(text(settings.html).includes(second.email));
  t.false(text(settings.html).includes(first.email));
  const next = await authorizeAs(browser, { email: '', password: '' });
  t.is(next.step.kind, 'redirect', 'a new authorization continues as the new account without sign-in');
  if (next.step.kind === 'redirect')
    t.is(await accountOfCode(next.step.url.searchParams.get('code')!, next.pkce.verifier), second.id);
});

test('prompt=login as the same account continues as before', async (t) => {
  const user = await insertUser(world.knex());
  const browser = new FlowBrowser(world.system.url);
  await authorizeAs(browser, user);
  const again = await authorizeAs(browser, user, 'login');
  t.is(again.step.kind, 'redirect');
  if (again.step.kind === 'redirect')
    t.is(await accountOfCode(again.step.url.searchParams.get('code')!, again.pkce.verifier), user.id);
});

test('prompt=login, then "Create account": the new account replaces the old one', async (t) => {
  const first = await insertUser(world.knex());
  const browser = new FlowBrowser(world.system.url);
  await authorizeAs(browser, first);
  const { url, pkce } = params('login');
  const signIn = page(await browser.open(url));
  const signUp = page(
    await browser.open(new URL(signIn.html.match(/href="([^"]+\/signup)"/)![1]!, signIn.url)),
  );
  const email = `replacement-${Date.now()}@example.com`;
  let step = await browser.submit(signUp, '/signup', {
    name: 'Replacement',
    email,
    username: `repl${Date.now().toString(36)}`,
    password: 'a long enough password',
  });
  if (step.kind === 'page' && step.html.includes('/consent"'))
    step = await browser.submit(step, '/consent', { decision: 'allow' });
  t.is(step.kind, 'redirect');
  if (step.kind !== 'redirect') return;
  const created = await world.knex()('users').where({ email }).first('id');
  t.is(await accountOfCode(step.url.searchParams.get('code')!, pkce.verifier), Number(created.id));
});
