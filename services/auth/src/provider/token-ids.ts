import { randomBytes } from 'node:crypto';
import { taggedTokenId } from '@sched/db/token-store/keys';
import type Provider from 'oidc-provider';

type IdGenerator = { generateTokenId(this: { grantId?: unknown }): string };

/** Random characters of a grant's hash tag (48 bits: grants spread evenly over the slots). */
const TAG_BYTES = 6;

/**
 * A grant is the unit of sharding of the token store (docs/token-store.md): its codes and tokens
 * carry its hash tag in their value (`<random>.<tag>`), so each lands in the grant's Redis Cluster
 * slot and the store's scripts touch one slot. Grant ids end with a fresh random tag; code and
 * token ids with their grant's. The random part is oidc-provider's own (same length and alphabet).
 */
export function tagTokenIdsWithTheirGrant(provider: Provider): void {
  const grant = provider.Grant.prototype as unknown as IdGenerator;
  const ownGrantId = grant.generateTokenId;
  grant.generateTokenId = function generateGrantId() {
    return `${ownGrantId.call(this)}.${randomBytes(TAG_BYTES).toString('base64url')}`;
  };
  for (const model of [provider.AuthorizationCode, provider.AccessToken, provider.RefreshToken]) {
    const prototype = model.prototype as unknown as IdGenerator;
    const own = prototype.generateTokenId;
    prototype.generateTokenId = function generateTaggedId() {
      const random = own.call(this);
      return typeof this.grantId === 'string' ? taggedTokenId(random, this.grantId) : random;
    };
  }
}
