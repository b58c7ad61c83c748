import {
  consumeEmailVerificationToken,
  insertEmailVerificationToken,
} from '@sched/db/queries/email-verification-tokens';
import { createUser } from '@sched/db/queries/users';
import { sha256Hex } from '@sched/kit/secrets';
import test from 'ava';
import { createTestDatabase, databaseBackends } from '../support/database.ts';

// The verification-link table on each database backend: hash only, single use, expiry, a new link voids the older ones.

const HOUR = 60 * 60 * 1000;

for (const backend of databaseBackends()) {
  const open = async () => {
    const database = await createTestDatabase({ backend });
    const user = await createUser(database.db.knex, {
      email: `verify-${backend}@example.com`,
      password: 'a long password',
      name: 'Verifier',
    });
    const knex = database.db.knex;
    /** Issues a link for `token`, live for an hour unless told otherwise; returns its hash. */
    const issue = async (token: string, expiresAt = new Date(Date.now() + HOUR)) => {
      const tokenHash = sha256Hex(token);
      await insertEmailVerificationToken(knex, { userId: user.id, email: user.email, tokenHash, expiresAt });
      return tokenHash;
    };
    return { database, knex, user, issue };
  };

  test(`${backend}: a link verifies its user and address once; the table holds only the hash`, async (t) => {
    const { database, knex, user, issue } = await open();
    try {
      const hash = await issue('the-token-from-the-link');
      const stored = await knex('email_verification_tokens').select('token_hash');
      t.deepEqual(stored, [{ token_hash: hash }]);

      t.deepEqual(await consumeEmailVerificationToken(knex, hash), { userId: user.id, email: user.email });
      t.is(await consumeEmailVerificationToken(knex, hash), null, 'second use');
      t.is(await consumeEmailVerificationToken(knex, sha256Hex('never issued')), null, 'unknown');
      t.is(await consumeEmailVerificationToken(knex, 'not a hash'), null, 'malformed');
    } finally {
      await database.drop();
    }
  });

  test(`${backend}: an expired link is refused`, async (t) => {
    const { database, knex, issue } = await open();
    try {
      const hash = await issue('expired');
      t.is(await consumeEmailVerificationToken(knex, hash, new Date(Date.now() + 2 * HOUR)), null);
      t.truthy(await consumeEmailVerificationToken(knex, hash), 'still valid now');
    } finally {
      await database.drop();
    }
  });

  test(`${backend}: concurrent uses of one link have exactly one winner`, async (t) => {
    const { database, knex, issue } = await open();
    try {
      const hash = await issue('raced');
      const results = await Promise.all(
        Array.from({ length: 20 }, () => consumeEmailVerificationToken(knex, hash)),
      );
      t.is(results.filter(Boolean).length, 1);
    } finally {
      await database.drop();
    }
  });

  test(`${backend}: a new link voids every older one of the user (used, expired and live)`, async (t) => {
    const { database, knex, issue } = await open();
    try {
      await issue('used');
      await consumeEmailVerificationToken(knex, sha256Hex('used'));
      await issue('expired', new Date(Date.now() - 1000));
      const live = await issue('live');
      await issue('newest');
      const left = await knex('email_verification_tokens').orderBy('id').pluck('token_hash');
      t.deepEqual(left, [sha256Hex('newest')]);
      t.is(await consumeEmailVerificationToken(knex, live), null, 'the older live link no longer works');
    } finally {
      await database.drop();
    }
  });
}
