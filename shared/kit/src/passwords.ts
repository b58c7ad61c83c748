import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard, in node:crypto). Stored as a self-describing PHC
 * string, so the parameters can change later without invalidating existing hashes:
 *
 *   $scrypt$ln=15,r=8,p=1$<salt, base64 without padding>$<hash, base64 without padding>
 *
 * ln is log2 of the cost N. N=2^15, r=8 needs 32 MiB per hash (128 * N * r bytes).
 */

export interface ScryptParams {
  /** log2(N) */
  ln: number;
  r: number;
  p: number;
}

export const CURRENT_PARAMS: Readonly<ScryptParams> = Object.freeze({ ln: 15, r: 8, p: 1 });
const SALT_BYTES = 16;
const HASH_BYTES = 32;

// Bounds for parameters read back from storage: a corrupt or hostile row must not make us
// allocate gigabytes or spin for minutes.
const LIMITS = { ln: [10, 20], r: [1, 32], p: [1, 16], salt: [8, 64], hash: [16, 64] } as const;
const MAX_MEMORY = 512 * 1024 * 1024;

const within = (value: number, [min, max]: readonly [number, number]) =>
  Number.isInteger(value) && value >= min && value <= max;

function scryptAsync(password: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.ln;
  const options: ScryptOptions = {
    N,
    r: params.r,
    p: params.p,
    maxmem: 128 * N * params.r * 2 + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** NFKC so that the same password typed on different keyboards / input methods matches (NIST 800-63B). */
const normalize = (password: string) => password.normalize('NFKC');

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export function encodeHash(params: ScryptParams, salt: Buffer, hash: Buffer): string {
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(hash)}`;
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]+$/;

/** Parses a stored hash; undefined when it is not one we can (safely) verify against. */
function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  // ['', 'scrypt', 'ln=..,r=..,p=..', salt, hash]
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== 'scrypt') return undefined;
  const [, , paramText = '', saltText = '', hashText = ''] = parts;
  const match = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})$/.exec(paramText);
  if (!match) return undefined;
  const params: ScryptParams = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (!within(params.ln, LIMITS.ln) || !within(params.r, LIMITS.r) || !within(params.p, LIMITS.p))
    return undefined;
  if (128 * 2 ** params.ln * params.r > MAX_MEMORY) return undefined;
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return undefined;
  const salt = Buffer.from(saltText, 'base64');
  const hash = Buffer.from(hashText, 'base64');
  if (!within(salt.length, LIMITS.salt) || !within(hash.length, LIMITS.hash)) return undefined;
  return { params, salt, hash };
}

export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  if (typeof password !== 'string') throw new TypeError('hashPassword: password must be a string');
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(normalize(password), salt, HASH_BYTES, params);
  return encodeHash(params, salt, hash);
}

// Verifying against "no hash" costs as much as a real verification, so a sign-in for an unknown
// e-mail cannot be told apart by its timing.
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
};

/**
 * True when `password` matches `stored`. Never throws: a missing, malformed or unsupported stored
 * hash is false. A missing one (user without password, unknown user) still does the work of a
 * verification, so timing does not reveal which case it was.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  try {
    if (typeof password !== 'string') return false;
    const parsed = typeof stored === 'string' ? parseHash(stored) : undefined;
    if (!parsed) {
      const dummy = parseHash(await getDummyHash());
      if (dummy) await scryptAsync(normalize(password), dummy.salt, dummy.hash.length, dummy.params);
      return false;
    }
    const candidate = await scryptAsync(normalize(password), parsed.salt, parsed.hash.length, parsed.params);
    return timingSafeEqual(candidate, parsed.hash);
  } catch {
    return false;
  }
}

/** True when `stored` was made with other parameters than the current ones (re-hash at next sign-in). */
export function needsRehash(
  stored: string | null | undefined,
  params: ScryptParams = CURRENT_PARAMS,
): boolean {
  const parsed = typeof stored === 'string' ? parseHash(stored) : undefined;
  if (!parsed) return true;
  return (
    parsed.params.ln !== params.ln ||
    parsed.params.r !== params.r ||
    parsed.params.p !== params.p ||
    parsed.hash.length !== HASH_BYTES ||
    parsed.salt.length !== SALT_BYTES
  );
}
