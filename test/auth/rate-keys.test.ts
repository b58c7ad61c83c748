import { createHash } from 'node:crypto';
import test from 'ava';
import { rateKeys } from '../../services/auth/src/http/rate-limit.ts';

// The per-client counter keys are memoized; they must stay what they were (counters live in the
// token store across a rolling upgrade) and differ per endpoint and per client.

const hashed = (clientId: string) => createHash('sha256').update(clientId).digest('hex').slice(0, 32);

test('per-client counter keys: SHA-256 of the client id, one counter per endpoint, the same on every call', (t) => {
  for (const clientId of ['c1', 'ünïcödé-client', 'x'.repeat(300)]) {
    t.is(rateKeys.tokenClient(clientId), `token:client:${hashed(clientId)}`);
    t.is(rateKeys.revokeClient(clientId), `revoke:client:${hashed(clientId)}`);
    t.is(rateKeys.introspectClient(clientId), `introspect:client:${hashed(clientId)}`);
    t.is(rateKeys.tokenClient(clientId), `token:client:${hashed(clientId)}`);
  }
  t.not(rateKeys.tokenClient('a'), rateKeys.tokenClient('b'));
});
