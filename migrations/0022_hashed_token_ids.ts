import type { Knex } from 'knex';

/**
 * OAuth tokens hashed at rest (docs/token-store.md "Hashed ids"): the token_records rows written
 * before, keyed by the token, code or session id itself with the same value as `jti`, move to the
 * stored id the store now uses, base64url(SHA-256(id)) followed by '.<tag>' when the id has one,
 * without `jti`; an Interaction loses its copy of the session cookie. Consumed marks, expiry and
 * indexes stay. A row whose hashed form exists already (written by this version while an older
 * process still wrote raw rows) is superseded by it and deleted, as the store reads the hashed one.
 * Rows written by older processes after this step are still found by the store under their raw id
 * until they expire. The ids of `RefreshRetry` rows (answers kept for seconds, filed under a used
 * refresh token) are left: a used refresh token is no credential.
 */
const MODELS = [
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'Session',
  'ClientCredentials',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'PushedAuthorizationRequest',
  'BackchannelAuthenticationRequest',
];

/** The stored id of `column`, as `storedTokenId` in @sched/db/token-store/keys computes it. */
const storedId = (column: string) =>
  `translate(rtrim(encode(sha256(convert_to(${column}, 'UTF8')), 'base64'), '='), '+/', '-_')
     || coalesce('.' || substring(${column} from '\\.([^.]+)$'), '')`;

export async function up(knex: Knex): Promise<void> {
  const old = `r.model = any(?::text[]) and r.payload->>'jti' = r.id`;
  await knex.raw(
    `delete from token_records r where ${old}
       and exists (select 1 from token_records h where h.model = r.model and h.id = ${storedId('r.id')})`,
    [MODELS],
  );
  await knex.raw(
    `update token_records r set id = ${storedId('r.id')}, payload = r.payload - 'jti' where ${old}`,
    [MODELS],
  );
  await knex.raw(
    `update token_records set payload = payload #- '{session,cookie}'
      where model = 'Interaction' and payload->'session'->'cookie' is not null`,
  );
}

/** Hashes cannot be undone: the rows stay as they are (the version before finds none of them). */
export async function down(): Promise<void> {}
