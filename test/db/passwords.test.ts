import { CURRENT_PARAMS, encodeHash, hashPassword, needsRehash, verifyPassword } from '@sched/kit/passwords';
import test from 'ava';

// scrypt password hashes: self-describing, salted, and verification never throws.

const PHC = /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

test('hashPassword produces a salted, self-describing scrypt string', async (t) => {
  const first = await hashPassword('correct horse battery staple');
  const second = await hashPassword('correct horse battery staple');
  t.regex(first, PHC);
  t.not(first, second, 'a fresh salt each time');
  t.false(first.includes('correct horse'));
});

test('verifyPassword accepts the password and refuses anything else', async (t) => {
  const stored = await hashPassword('s3cret-Passw0rd');
  t.true(await verifyPassword('s3cret-Passw0rd', stored));
  t.false(await verifyPassword('s3cret-passw0rd', stored));
  t.false(await verifyPassword('s3cret-Passw0rd ', stored));
  t.false(await verifyPassword('', stored));
});

test('passwords are compared after Unicode NFKC normalisation', async (t) => {
  const stored = await hashPassword('caf\u00e9');
  t.true(await verifyPassword('cafe\u0301', stored), 'decomposed form matches the composed one');
  t.true(await verifyPassword('caf\u00e9', stored));
});

test('older parameters still verify and ask for a re-hash', async (t) => {
  const params = { ln: 14, r: 8, p: 1 };
  const stored = await hashPassword('old one', params);
  t.regex(stored, /^\$scrypt\$ln=14,r=8,p=1\$/);
  t.true(await verifyPassword('old one', stored));
  t.true(needsRehash(stored));
  t.false(needsRehash(await hashPassword('new one')));
  t.true(needsRehash(null));
  t.deepEqual({ ...CURRENT_PARAMS }, { ln: 15, r: 8, p: 1 });
});

test('verifyPassword returns false, never throws, on missing or malformed stored hashes', async (t) => {
  const good = await hashPassword('pw');
  const [, , , salt, hash] = good.split('$');
  const malformed: Array<string | null | undefined> = [
    null,
    undefined,
    '',
    'pw',
    '$2b$10$abcdefghijklmnopqrstuuJ3d5bPSH3bhc8kU0d6f9yq7V2f6rY2e',
    '$scrypt$',
    '$scrypt$ln=15,r=8,p=1$',
    `$scrypt$ln=15,r=8,p=1$${salt}`,
    `$scrypt$ln=15,r=8,p=1$${salt}$${hash}$extra`,
    `$argon2id$ln=15,r=8,p=1$${salt}$${hash}`,
    `$scrypt$ln=99,r=8,p=1$${salt}$${hash}`,
    `$scrypt$ln=20,r=32,p=1$${salt}$${hash}`,
    `$scrypt$ln=15,r=0,p=1$${salt}$${hash}`,
    `$scrypt$ln=15,r=8,p=1$!!notbase64!!$${hash}`,
    `$scrypt$ln=15,r=8,p=1$${salt}$AAAA`,
    `$scrypt$ln=15,r=8,p=1$$${hash}`,
    `$scrypt$ln=-1,r=8,p=1$${salt}$${hash}`,
    `$scrypt$N=32768,r=8,p=1$${salt}$${hash}`,
  ];
  for (const stored of malformed) {
    t.false(await verifyPassword('pw', stored), String(stored));
  }
  t.false(await verifyPassword(undefined as unknown as string, good));
});

test('encodeHash writes the documented layout', (t) => {
  const salt = Buffer.alloc(16, 1);
  const hash = Buffer.alloc(32, 2);
  t.is(
    encodeHash({ ln: 15, r: 8, p: 1 }, salt, hash),
    `$scrypt$ln=15,r=8,p=1$${salt.toString('base64').replace(/=+$/, '')}$${hash.toString('base64').replace(/=+$/, '')}`,
  );
});
