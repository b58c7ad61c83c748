import { type NewSecret, newSecret, randomToken } from '@sched/kit/secrets';
import type { Knex } from 'knex';

/**
 * Resource servers (migration 0014): callers of the introspection endpoint that may introspect
 * any token. The secret is stored as its SHA-256 only; `createResourceServer` returns the plain
 * secret once.
 */
export interface ResourceServer {
  id: string;
  name: string;
  description: string | null;
  /** Last 4 characters of the secret, to tell secrets apart (`****a1b2`). */
  secretHint: string;
  createdByUserId: number | null;
  createdAt: Date;
}

interface ResourceServerRow {
  id: string;
  name: string;
  description: string | null;
  secret_hint: string;
  created_by_user_id: number | string | null;
  created_at: Date;
}

const COLUMNS = ['id', 'name', 'description', 'secret_hint', 'created_by_user_id', 'created_at'] as const;

/** `rs_` + 16 random bytes (base64url, 22 characters): never the shape of an OAuth client id. */
export const RESOURCE_SERVER_ID = /^rs_[A-Za-z0-9_-]{22}$/;

const newResourceServerId = (): string => `rs_${randomToken(16)}`;

function mapRow(row: ResourceServerRow): ResourceServer {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    secretHint: row.secret_hint,
    createdByUserId: row.created_by_user_id === null ? null : Number(row.created_by_user_id),
    createdAt: row.created_at,
  };
}

export async function createResourceServer(
  knex: Knex,
  input: { name: string; description?: string | null | undefined; createdByUserId: number | null },
): Promise<{ server: ResourceServer; secret: NewSecret }> {
  const secret = newSecret('', 32);
  const [row] = (await knex('resource_servers')
    .insert({
      id: newResourceServerId(),
      name: input.name,
      description: input.description ?? null,
      secret_hash: secret.hash,
      secret_hint: secret.hint,
      created_by_user_id: input.createdByUserId,
    })
    .returning(COLUMNS)) as ResourceServerRow[];
  return { server: mapRow(row!), secret };
}

/** Every resource server, oldest first (no secrets). */
export async function listResourceServers(knex: Knex): Promise<ResourceServer[]> {
  const rows = (await knex('resource_servers')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select(COLUMNS)) as ResourceServerRow[];
  return rows.map(mapRow);
}

/** One resource server (no secret); null when there is none with that id. */
export async function findResourceServer(knex: Knex, id: string): Promise<ResourceServer | null> {
  if (!RESOURCE_SERVER_ID.test(id)) return null;
  const row = (await knex('resource_servers').where({ id }).first(COLUMNS)) as ResourceServerRow | undefined;
  return row ? mapRow(row) : null;
}

/** False when there was none with that id. */
export async function deleteResourceServer(knex: Knex, id: string): Promise<boolean> {
  if (!RESOURCE_SERVER_ID.test(id)) return false;
  // `returning` rather than the affected-row count: knex-pglite does not report counts of deletes.
  const deleted = (await knex('resource_servers').where({ id }).delete().returning('id')) as unknown[];
  return deleted.length > 0;
}

/** The SHA-256 (hex) of the resource server's secret, for authentication; undefined when unknown. */
export async function findResourceServerSecretHash(knex: Knex, id: string): Promise<string | undefined> {
  if (!RESOURCE_SERVER_ID.test(id)) return undefined;
  const row = (await knex('resource_servers').where({ id }).first('secret_hash')) as
    | { secret_hash: string }
    | undefined;
  return row?.secret_hash;
}
