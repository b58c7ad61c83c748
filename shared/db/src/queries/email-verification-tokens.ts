import type { Knex } from 'knex';

/**
 * E-mail verification links (table `email_verification_tokens`). Only the SHA-256 of the link's
 * token is stored; using a link is one conditional UPDATE, so it is single-use even under races.
 */

const TOKEN_HASH = /^[0-9a-f]{64}$/;

export interface NewEmailVerificationToken {
  userId: number;
  /** The address being verified: the link stops working when the user's address changes. */
  email: string;
  tokenHash: string;
  expiresAt: Date;
}

/**
 * Stores a new link's token. Every earlier link of the user is deleted: a new link voids the older
 * ones (and no sweeper is needed).
 */
export async function insertEmailVerificationToken(
  knex: Knex,
  token: NewEmailVerificationToken,
): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('email_verification_tokens').where({ user_id: token.userId }).del();
    await trx('email_verification_tokens').insert({
      user_id: token.userId,
      email: token.email,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
    });
  });
}

export interface ConsumedEmailVerificationToken {
  userId: number;
  email: string;
}

/**
 * Marks the token used and returns whom it verifies; null when it is unknown, expired or already
 * used (the three are not told apart, so a link reveals nothing).
 */
export async function consumeEmailVerificationToken(
  knex: Knex,
  tokenHash: string,
  now: Date = new Date(),
): Promise<ConsumedEmailVerificationToken | null> {
  if (!TOKEN_HASH.test(tokenHash)) return null;
  const rows = (await knex('email_verification_tokens')
    .where({ token_hash: tokenHash })
    .whereNull('consumed_at')
    .where('expires_at', '>', now)
    .update({ consumed_at: now })
    .returning(['user_id', 'email'])) as Array<{ user_id: string | number; email: string }>;
  const row = rows[0];
  return row ? { userId: Number(row.user_id), email: row.email } : null;
}
