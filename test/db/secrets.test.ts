import {
  constantTimeEqual,
  maskedHint,
  newApiKey,
  newClientSecret,
  newSecret,
  randomToken,
  sha256Hex,
} from '@sched/kit/secrets';
import test from 'ava';

test('randomToken is base64url of the requested number of bytes', (t) => {
  t.regex(randomToken(), /^[A-Za-z0-9_-]{43}$/);
  t.regex(randomToken(16), /^[A-Za-z0-9_-]{22}$/);
  t.is(Buffer.from(randomToken(48), 'base64url').length, 48);
  t.not(randomToken(), randomToken());
  t.throws(() => randomToken(0), { instanceOf: RangeError });
  t.throws(() => randomToken(1.5), { instanceOf: RangeError });
});

test('sha256Hex matches the standard test vectors', (t) => {
  t.is(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  t.is(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.is(sha256Hex(new TextEncoder().encode('abc')), sha256Hex('abc'));
});

test('constantTimeEqual compares strings of any length', (t) => {
  t.true(constantTimeEqual('secret', 'secret'));
  t.true(constantTimeEqual('', ''));
  t.false(constantTimeEqual('secret', 'Secret'));
  t.false(constantTimeEqual('secret', 'secret-but-longer'));
  t.false(constantTimeEqual('', 'x'));
  t.true(constantTimeEqual('h\u00e9', 'h\u00e9'));
});

test('newApiKey: svc_ + 32 random bytes; stores only the hash and a 4-character hint', (t) => {
  const key = newApiKey();
  t.regex(key.plain, /^svc_[A-Za-z0-9_-]{43}$/);
  t.is(Buffer.from(key.plain.slice(4), 'base64url').length, 32);
  t.is(key.hash, sha256Hex(key.plain));
  t.regex(key.hash, /^[0-9a-f]{64}$/);
  t.is(key.hint, key.plain.slice(-4));
  t.not(newApiKey().plain, key.plain);
  t.is(maskedHint(key.hint), `****${key.hint}`);
});

test('newClientSecret and newSecret', (t) => {
  const secret = newClientSecret();
  t.regex(secret.plain, /^[A-Za-z0-9_-]{43}$/);
  t.is(secret.hash, sha256Hex(secret.plain));
  t.regex(newSecret('whsec_', 40).plain, /^whsec_[A-Za-z0-9_-]{54}$/);
  t.throws(() => newSecret('x_', 8), { instanceOf: RangeError });
});
