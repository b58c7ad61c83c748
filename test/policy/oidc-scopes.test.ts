import { creationScopesInput, updateScopesInput } from '@sched/clients/schemas';
import { checkAuthorizationScopes } from '@sched/policy/authorization-scopes';
import { reviewStatusAfterUpdate, reviewStatusAtCreation } from '@sched/policy/client-review';
import { describeScope } from '@sched/policy/scope-descriptions';
import {
  checkTokenScopes,
  isKnownScope,
  isLegacyScopeSet,
  isScope,
  OIDC_SCOPES,
  scopeLevel,
} from '@sched/policy/scopes';
import test from 'ava';

// The OIDC scopes: lowercase, registrable, described, never API scopes.

test('openid, profile and email are known, lowercase only, and not among the 30 API scopes', (t) => {
  t.deepEqual([...OIDC_SCOPES], ['openid', 'profile', 'email']);
  for (const scope of OIDC_SCOPES) {
    t.true(isKnownScope(scope));
    t.false(isScope(scope));
    t.is(scopeLevel(scope), 'oidc');
    t.false(isKnownScope(scope.toUpperCase()));
  }
});

test('registration accepts them (creation and update), still needs at least one scope', (t) => {
  t.deepEqual(reviewStatusAtCreation(['openid', 'profile', 'email', 'BOOKING_READ']), {
    ok: true,
    status: 'PENDING',
  });
  t.deepEqual(reviewStatusAtCreation(['openid']), { ok: true, status: 'PENDING' });
  t.false(reviewStatusAtCreation([]).ok);
  t.false(reviewStatusAtCreation(['OPENID']).ok);
  t.true(creationScopesInput.safeParse(['openid', 'email', 'PROFILE_READ']).success);
  t.false(creationScopesInput.safeParse(['OpenID']).success);
  t.true(updateScopesInput.safeParse(['profile']).success);
  const fields = { name: 'App', redirectUris: ['https://a.example/cb'] };
  const update = reviewStatusAfterUpdate({
    status: 'APPROVED',
    legacy: false,
    before: { ...fields, scopes: ['PROFILE_READ'] },
    after: { ...fields, scopes: ['PROFILE_READ', 'openid'] },
  });
  t.true(update.ok);
  if (update.ok) t.is(update.status, 'PENDING', 'adding openid sends the client back to review');
});

test('a client with openid is not legacy, so its tokens are scope-checked', (t) => {
  t.false(isLegacyScopeSet(['openid']));
  t.false(isLegacyScopeSet(['READ_BOOKING', 'openid']));
  t.true(isLegacyScopeSet(['READ_BOOKING']));
  const check = checkTokenScopes({
    requiredScopes: 'PROFILE_READ',
    grantedScopes: ['openid', 'profile'],
    legacy: false,
  });
  t.false(check.allowed);
});

test('authorization: the OIDC scopes must be registered, for legacy clients too; missing scope is still required', (t) => {
  t.deepEqual(
    checkAuthorizationScopes({
      requested: ['openid', 'email'],
      clientScopes: ['openid', 'email'],
      legacyClient: false,
    }),
    {
      ok: true,
      scopes: ['openid', 'email'],
    },
  );
  const notRegistered = checkAuthorizationScopes({
    requested: ['openid'],
    clientScopes: ['PROFILE_READ'],
    legacyClient: false,
  });
  t.like(notRegistered, { ok: false, error: 'invalid_request' });
  const legacy = checkAuthorizationScopes({
    requested: ['READ_BOOKING', 'openid'],
    clientScopes: [],
    legacyClient: true,
  });
  t.like(legacy, { ok: false, error: 'invalid_request' });
  // The legacy migration rule for API scopes is unchanged.
  t.true(checkAuthorizationScopes({ requested: ['BOOKING_READ'], clientScopes: [], legacyClient: true }).ok);
  t.like(checkAuthorizationScopes({ requested: [], clientScopes: ['openid'], legacyClient: false }), {
    ok: false,
    error: 'scope_required',
  });
});

test('each OIDC scope has plain words for the consent page', (t) => {
  for (const scope of OIDC_SCOPES) t.not(describeScope(scope), scope);
});
