import { tagOf } from '@sched/db/token-store/keys';
import test from 'ava';
import Provider from 'oidc-provider';
import { wellFormed } from '../../services/auth/src/provider/adapter.ts';
import { tagTokenIdsWithTheirGrant } from '../../services/auth/src/provider/token-ids.ts';

// A grant is the unit of sharding of the token store: its codes and tokens carry its hash tag in
// their value (docs/token-store.md "Redis layout").

test("grant ids end in a fresh tag; codes and tokens of the grant in the grant's", (t) => {
  const provider = new Provider('http://127.0.0.1', {});
  tagTokenIdsWithTheirGrant(provider);
  const grantIds = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const grant = new provider.Grant({ accountId: '1', clientId: 'c' });
    const grantId = (grant as unknown as { generateTokenId(): string }).generateTokenId();
    t.regex(grantId, /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{8}$/);
    t.true(wellFormed(grantId));
    grantIds.add(tagOf(grantId));
    const made = [
      new provider.AuthorizationCode({ grantId, accountId: '1' } as never),
      new provider.AccessToken({ grantId, accountId: '1' } as never),
      new provider.RefreshToken({ grantId, accountId: '1' } as never),
    ];
    for (const model of made) {
      const id = (model as unknown as { generateTokenId(): string }).generateTokenId();
      t.is(tagOf(id), tagOf(grantId), `${model.constructor.name} carries its grant's tag`);
      t.true(wellFormed(id) && id.length <= 60);
    }
  }
  t.is(grantIds.size, 20, 'every grant its own tag');
});
