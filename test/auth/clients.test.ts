import {
  addClientSecret,
  listClientSecrets,
  revokeClientSecret,
  setReviewStatus,
  TOO_MANY_SECRETS_MESSAGE,
  updateOAuthClient,
} from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { authorizeUrl, issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertClient } from '../support/factories.ts';

// Clients are read from the database per request: secrets (two active, both valid; a revoked one
// fails at once; tokens survive) and review decisions take effect on the next request.

const { system, user } = setUpWorld(test);
const knex = () => system.stores.db.knex;
const versions = () => system.stores.tokenStore;

const refreshWith = (clientId: string, secret: string, refreshToken: string) =>
  tokenRequest(system.url, {
    client_id: clientId,
    client_secret: secret,
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });

test('two active secrets both work; a revoked one fails at once while its tokens keep working', async (t) => {
  const app = await insertClient(knex());
  const first = app.secret!;
  const second = (await addClientSecret(knex(), versions(), app.client.id))!;
  t.is((await listClientSecrets(knex(), app.client.id)).length, 2);

  // Tokens issued while authenticating with the first secret.
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const withFirst = await refreshWith(app.client.id, first, tokens.refresh_token);
  t.is(withFirst.status, 200);
  const withSecond = await refreshWith(app.client.id, second.plain, String(withFirst.body.refresh_token));
  t.is(withSecond.status, 200);
  const accessToken = String(withSecond.body.access_token);
  const refreshToken = String(withSecond.body.refresh_token);

  const firstId = (await listClientSecrets(knex(), app.client.id))[0]!.id;
  t.true(await revokeClientSecret(knex(), versions(), app.client.id, firstId));

  const revoked = await refreshWith(app.client.id, first, refreshToken);
  t.is(revoked.status, 401);
  t.is(revoked.body.error, 'invalid_client');
  t.is(revoked.body.error_description, 'invalid_client_credentials');

  t.truthy(
    await system.stores.tokenStore.find('AccessToken', accessToken),
    'access token survives the revocation',
  );
  const stillWorks = await refreshWith(app.client.id, second.plain, refreshToken);
  t.is(stillWorks.status, 200, 'refresh token survives the revocation');
});

test('a third active secret is refused; a public client has none', async (t) => {
  const app = await insertClient(knex());
  await addClientSecret(knex(), versions(), app.client.id);
  await t.throwsAsync(addClientSecret(knex(), versions(), app.client.id), {
    message: TOO_MANY_SECRETS_MESSAGE,
  });
  const spa = await insertClient(knex(), { type: 'public' });
  await t.throwsAsync(addClientSecret(knex(), versions(), spa.client.id), { message: /Public clients/ });
});

test('a client moved back to PENDING stops at once: no authorization, no token, existing tokens stay', async (t) => {
  const app = await insertClient(knex());
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  await setReviewStatus(knex(), versions(), app.client.id, 'PENDING');

  const page = await fetch(
    authorizeUrl(system.url, {
      client_id: app.client.id,
      redirect_uri: app.redirectUri,
      scope: 'PROFILE_READ',
    }),
    { redirect: 'manual' },
  );
  t.is(page.status, 400);
  const refused = await refreshWith(app.client.id, app.secret!, tokens.refresh_token);
  t.is(refused.status, 401);
  t.is(refused.body.error, 'unauthorized_client');
  t.is(refused.body.error_description, 'client_not_approved');
  t.truthy(await system.stores.tokenStore.find('AccessToken', tokens.access_token));

  await setReviewStatus(knex(), versions(), app.client.id, 'APPROVED');
  t.is((await refreshWith(app.client.id, app.secret!, tokens.refresh_token)).status, 200);
});

test('a rejected decision takes effect on the next token request', async (t) => {
  const app = await insertClient(knex());
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  await setReviewStatus(knex(), versions(), app.client.id, 'REJECTED', {
    rejectionReason: 'Misleading name',
  });
  const refused = await refreshWith(app.client.id, app.secret!, tokens.refresh_token);
  t.is(refused.body.error, 'unauthorized_client');
  t.is(refused.body.error_description, 'client_rejected');
});

test('a redirect URI removed from the client is refused on the next authorization', async (t) => {
  const app = await insertClient(knex(), {
    redirectUris: ['https://a.example.com/cb', 'https://b.example.com/cb'],
  });
  await updateOAuthClient(knex(), versions(), app.client.id, { redirectUris: ['https://b.example.com/cb'] });
  const page = await fetch(
    authorizeUrl(system.url, {
      client_id: app.client.id,
      redirect_uri: 'https://a.example.com/cb',
      scope: 'PROFILE_READ',
    }),
    { redirect: 'manual' },
  );
  t.is(page.status, 400);
});
