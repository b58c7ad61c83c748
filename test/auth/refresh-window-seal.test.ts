import { createCipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import test from 'ava';
import { AnswerSeal } from '../../services/auth/src/endpoints/answer-seal.ts';
import { RefreshWindow, type TokenAnswer } from '../../services/auth/src/endpoints/refresh-window.ts';

// The retry window's sealed answers (endpoints/refresh-window.ts, answer-seal.ts), without a
// server: they open for their refresh token and client only, under any of the cookie keys, in
// both plain forms, and answers sealed with AES-256-GCM by an older version still open.

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

const KEY = 'key-one-0123456789abcdefghijklmnop';

/** Flips one character of the sealed text at `index` (a valid base64url character either way). */
function flip(sealed: string, index: number): string {
  const swapped = sealed[index] === 'A' ? 'B' : 'A';
  return `${sealed.slice(0, index)}${swapped}${sealed.slice(index + 1)}`;
}

test('a changed byte anywhere in the sealed text, or a cut one, does not open', (t) => {
  const window = new RefreshWindow(10, [KEY]);
  const { payload } = window.keep('used-token.tag', 'client-a', answer);
  const sealed = payload.sealed as string;
  const dot = sealed.indexOf('.');
  for (const index of [0, 13, 20, dot - 1, dot + 1, sealed.length - 1]) {
    const tampered = { ...payload, sealed: flip(sealed, index) };
    t.is(window.open('used-token.tag', 'client-a', tampered), undefined, `changed at ${index}`);
  }
  for (const cut of [sealed.slice(0, dot), sealed.slice(0, -1), `.${sealed.slice(dot + 1)}`]) {
    t.is(window.open('used-token.tag', 'client-a', { ...payload, sealed: cut }), undefined);
  }
});

test('every seal takes keystream no earlier seal took, across chunks', (t) => {
  const seal = new AnswerSeal([KEY]);
  const taken = new Map<string, Array<[number, number]>>();
  for (let i = 0; i < 3000; i++) {
    const plain = 'x'.repeat(100 + (i % 300));
    const sealed = seal.seal(plain, `binding-${i}`);
    t.is(seal.open(sealed, `binding-${i}`), plain);
    const bytes = Buffer.from(sealed.slice(0, sealed.indexOf('.')), 'base64url');
    const nonce = bytes.subarray(0, 12).toString('hex');
    const first = bytes.readUInt32BE(12) * 16;
    const ranges = taken.get(nonce) ?? [];
    for (const [start, end] of ranges) t.true(first >= end || first + plain.length <= start);
    ranges.push([first, first + plain.length]);
    taken.set(nonce, ranges);
  }
  t.true(taken.size > 1, 'the keystream was drawn again under a new nonce');
  // The same text sealed twice gives two different ciphertexts.
  t.not(seal.seal('same', 'b').split('.')[0], seal.seal('same', 'b').split('.')[0]);
});

/** An answer as the version before 2026-11-27 sealed it: AES-256-GCM, binding inside the lines. */
function sealedTheGcmWay(cookieKey: string, refreshToken: string, clientId: string, at: number): string {
  const key = createSecretKey(
    Buffer.from(
      hkdfSync('sha256', cookieKey, 'sched:auth:refresh-retry-window', 'aes-256-gcm answer key', 32),
    ),
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const lines = `RefreshRetry\n${refreshToken}\n${clientId}\n${at}\n1800\nPROFILE_READ\n${answer.access_token}\n${answer.refresh_token}\n`;
  const body = cipher.update(lines, 'utf8');
  cipher.final();
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

test('an answer sealed with AES-256-GCM by the previous version still opens, bound as it was', (t) => {
  const window = new RefreshWindow(10, ['key-new-0123456789abcdefghijklmnop', KEY]);
  const payload = {
    kind: 'RefreshRetry',
    sealed: sealedTheGcmWay(KEY, 'used-token.tag', 'client-a', Date.now()),
  };
  t.deepEqual(window.open('used-token.tag', 'client-a', payload), answer);
  t.is(window.open('used-token.tag', 'client-b', payload), undefined);
  t.is(window.open('other-token.tag', 'client-a', payload), undefined);
  t.is(
    new RefreshWindow(10, ['key-xyz-0123456789abcdefghijklmnop']).open('used-token.tag', 'client-a', payload),
    undefined,
  );
});
