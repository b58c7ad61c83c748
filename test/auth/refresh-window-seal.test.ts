import test from 'ava';
import { RefreshWindow, type TokenAnswer } from '../../services/auth/src/endpoints/refresh-window.ts';

// The retry window's sealed answers (endpoints/refresh-window.ts), without a server: they open for
// their refresh token and client only, under any of the cookie keys, in both sealed forms.

const answer: TokenAnswer = {
  access_token: 'access-0123456789.tag',
  refresh_token: 'refresh-0123456789.tag',
  token_type: 'bearer',
  expires_in: 1800,
  scope: 'PROFILE_READ',
};

test('an answer opens for its refresh token and client only, and not in plain in the record', (t) => {
  const window = new RefreshWindow(10, ['key-one-0123456789abcdefghijklmnop']);
  const { payload } = window.keep('used-token.tag', 'client-a', answer);
  t.deepEqual(window.open('used-token.tag', 'client-a', payload), answer);
  t.is(window.open('other-token.tag', 'client-a', payload), undefined, 'moved to another record');
  t.is(window.open('used-token.tag', 'client-b', payload), undefined, "another client's");
  t.false(JSON.stringify(payload).includes('access-0123456789'));
  const withIdToken = { ...answer, id_token: 'header.claims.signature' };
  const kept = window.keep('used-token.tag', 'client-a', withIdToken).payload;
  t.deepEqual(window.open('used-token.tag', 'client-a', kept), withIdToken);
});

test('an answer that does not fit the lines is sealed as JSON and bound all the same', (t) => {
  const window = new RefreshWindow(10, ['key-one-0123456789abcdefghijklmnop']);
  const odd = { ...answer, scope: 'a\nb' };
  const { payload } = window.keep('used-token.tag', 'client-a', odd);
  t.deepEqual(window.open('used-token.tag', 'client-a', payload), odd);
  t.is(window.open('other-token.tag', 'client-a', payload), undefined);
  t.is(window.open('used-token.tag', 'client-b', payload), undefined);
});

test('a rotated key list still opens what the previous first key sealed; an unknown key does not', (t) => {
  const before = new RefreshWindow(10, ['key-old-0123456789abcdefghijklmnop']);
  const after = new RefreshWindow(10, [
    'key-new-0123456789abcdefghijklmnop',
    'key-old-0123456789abcdefghijklmnop',
  ]);
  const stranger = new RefreshWindow(10, ['key-xyz-0123456789abcdefghijklmnop']);
  const { payload } = before.keep('used-token.tag', 'client-a', answer);
  t.deepEqual(after.open('used-token.tag', 'client-a', payload), answer);
  t.is(stranger.open('used-token.tag', 'client-a', payload), undefined);
});
