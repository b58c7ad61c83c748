import type { Knex } from 'knex';

/**
 * ID-token signing keys (table `signing_keys`, migration 0013). The rows hold the private key
 * encrypted; encrypting, generating and deciding when a key retires is the authorization
 * server's (services/auth/src/keys/). Writes that change the key set run inside
 * `withSigningKeyLock`, so two processes starting at once, or a rotation racing a start-up, never
 * make two active keys (a unique index backs that up).
 */

export type SigningAlg = 'ES256' | 'RS256';
export type SigningKeyState = 'active' | 'retiring';

export interface SigningKeyRow {
  kid: string;
  alg: SigningAlg;
  state: SigningKeyState;
  publicJwk: Record<string, unknown>;
  privateJwkEncrypted: string;
  createdAt: Date;
  retiredAt: Date | null;
}

interface Row {
  kid: string;
  alg: SigningAlg;
  state: SigningKeyState;
  public_jwk: Record<string, unknown> | string;
  private_jwk_encrypted: string;
  created_at: Date | string;
  retired_at: Date | string | null;
}

const map = (row: Row): SigningKeyRow => ({
  kid: row.kid,
  alg: row.alg,
  state: row.state,
  publicJwk: typeof row.public_jwk === 'string' ? JSON.parse(row.public_jwk) : row.public_jwk,
  privateJwkEncrypted: row.private_jwk_encrypted,
  createdAt: new Date(row.created_at),
  retiredAt: row.retired_at === null ? null : new Date(row.retired_at),
});

/** Every key, the active one first, then retiring keys newest first. */
export async function listSigningKeys(knex: Knex): Promise<SigningKeyRow[]> {
  const rows: Row[] = await knex('signing_keys')
    .select('*')
    .orderByRaw("case when state = 'active' then 0 else 1 end, created_at desc, kid");
  return rows.map(map);
}

/** Runs `work` in a transaction holding the signing keys' advisory lock (one writer at a time). */
export async function withSigningKeyLock<T>(
  knex: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', ['signing-keys']);
    return work(trx);
  });
}

export interface NewSigningKey {
  kid: string;
  alg: SigningAlg;
  publicJwk: Record<string, unknown>;
  privateJwkEncrypted: string;
}

/**
 * Inside `withSigningKeyLock`: the current active key becomes retiring (as of now) and `key` becomes
 * the active one. Returns the kid that was retired, if any.
 */
export async function insertActiveSigningKey(
  trx: Knex.Transaction,
  key: NewSigningKey,
): Promise<string | null> {
  const retired: Array<{ kid: string }> = await trx('signing_keys')
    .where({ state: 'active' })
    .update({ state: 'retiring', retired_at: trx.fn.now() })
    .returning('kid');
  await trx('signing_keys').insert({
    kid: key.kid,
    alg: key.alg,
    state: 'active',
    public_jwk: JSON.stringify(key.publicJwk),
    private_jwk_encrypted: key.privateJwkEncrypted,
  });
  return retired[0]?.kid ?? null;
}

/** Deletes retiring keys that stopped signing before `retiredBefore`; returns their kids. */
export async function deleteRetiredSigningKeys(knex: Knex, retiredBefore: Date): Promise<string[]> {
  const rows: Array<{ kid: string }> = await knex('signing_keys')
    .where({ state: 'retiring' })
    .andWhere('retired_at', '<', retiredBefore)
    .del()
    .returning('kid');
  return rows.map((row) => row.kid);
}
