import type { Role } from '@sched/policy/roles';
import type { Knex } from 'knex';
import { memoized } from '@sched/kit/memoized';

/**
 * What the resource API needs to authorize one request on an organization or team endpoint, read
 * in one statement, plus the names of the cache-invalidation versions (token store
 * `bumpVersion` / `findWithVersions`) that tell every API process when such facts change.
 */

/**
 * Version keys. Bump after the change is committed:
 * - `org:<id>`: the organization (pbacEnabled), its memberships, its custom roles and their
 *   permissions, a team created in it. Team-level facts of the organization's teams carry it too.
 * - `team:<id>`: the team and its memberships.
 * - `user:<id>`: the user (service-admin flag, deletion) and their API keys (revocation).
 */
// Memoized: every API request names the same few keys several times (target, credential read,
// cache tags); built once per id instead of a new string each time.
export const accessVersionKey = {
  org: memoized((organizationId: number): string => `org:${organizationId}`),
  team: memoized((teamId: number): string => `team:${teamId}`),
  user: memoized((userId: number): string => `user:${userId}`),
} as const;

/** One membership of the caller, with the permissions of its custom role (empty without one). */
export interface MembershipFact {
  id: number;
  role: Role;
  accepted: boolean;
  customRoleId: string | null;
  permissions: string[];
}

export interface AccessFacts {
  /** The organization asked about; null when there is no such organization (or none was asked). */
  organization: { id: number; pbacEnabled: boolean } | null;
  /** The team asked about; null when there is no such team (or none was asked). */
  team: { id: number; organizationId: number | null } | null;
  /** The user's membership in the organization asked about. */
  orgMembership: MembershipFact | null;
  /** The user's membership in the team asked about. */
  teamMembership: MembershipFact | null;
}

interface FactsRow {
  org: unknown;
  team: unknown;
  org_membership: unknown;
  team_membership: unknown;
}

const json = <T>(value: unknown): T | null =>
  value === null || value === undefined
    ? null
    : ((typeof value === 'string' ? JSON.parse(value) : value) as T);

const MEMBERSHIP_JSON = `json_build_object(
    'id', m.id, 'role', m.role, 'accepted', m.accepted, 'customRoleId', m.custom_role_id,
    'permissions', coalesce(
      (select json_agg(rp.permission order by rp.permission) from role_permissions rp
        where rp.role_id = m.custom_role_id),
      '[]'::json))`;

const FACTS_SQL = `select
  (select json_build_object('id', o.id, 'pbacEnabled', o.pbac_enabled)
     from organizations o where o.id = ?::bigint) as org,
  (select json_build_object('id', t.id, 'organizationId', t.organization_id)
     from teams t where t.id = ?::bigint) as team,
  (select ${MEMBERSHIP_JSON} from memberships m
     where m.user_id = ?::bigint and m.organization_id = ?::bigint) as org_membership,
  (select ${MEMBERSHIP_JSON} from memberships m
     where m.user_id = ?::bigint and m.team_id = ?::bigint) as team_membership`;

const toFact = (raw: unknown): MembershipFact | null => {
  const value = json<MembershipFact & { id: number | string }>(raw);
  return value ? { ...value, id: Number(value.id), permissions: value.permissions ?? [] } : null;
};

/**
 * Organization, team and the user's memberships in both, in one statement. Pass null for the part
 * a route does not name (an organization-level route has no team).
 */
export async function loadAccessFacts(
  knex: Knex,
  input: { userId: number; organizationId: number | null; teamId: number | null },
): Promise<AccessFacts> {
  const { userId, organizationId, teamId } = input;
  const result = (await knex.raw(FACTS_SQL, [
    organizationId,
    teamId,
    userId,
    organizationId,
    userId,
    teamId,
  ])) as { rows: FactsRow[] };
  const row = result.rows[0];
  const org = json<{ id: number | string; pbacEnabled: boolean }>(row?.org);
  const team = json<{ id: number | string; organizationId: number | string | null }>(row?.team);
  return {
    organization: org ? { id: Number(org.id), pbacEnabled: org.pbacEnabled } : null,
    team: team
      ? {
          id: Number(team.id),
          organizationId: team.organizationId === null ? null : Number(team.organizationId),
        }
      : null,
    orgMembership: toFact(row?.org_membership),
    teamMembership: toFact(row?.team_membership),
  };
}

/**
 * The organization a team belongs to (null for a team outside any organization), or undefined when
 * there is no such team. A team never moves between organizations, so callers may cache the answer.
 */
export async function findTeamOrganizationId(knex: Knex, teamId: number): Promise<number | null | undefined> {
  if (!Number.isSafeInteger(teamId)) return undefined;
  const row = (await knex('teams').where({ id: teamId }).first('organization_id')) as
    | { organization_id: number | string | null }
    | undefined;
  if (!row) return undefined;
  return row.organization_id === null ? null : Number(row.organization_id);
}

/** Service-admin flag of a user and whether the account is disabled, or null when there is no such user. */
export async function findUserAccessFacts(
  knex: Knex,
  userId: number,
): Promise<{ serviceAdmin: boolean; disabled: boolean } | null> {
  if (!Number.isSafeInteger(userId)) return null;
  const row = (await knex('users').where({ id: userId }).first('is_service_admin', 'disabled_at')) as
    | { is_service_admin: boolean; disabled_at: Date | null }
    | undefined;
  return row ? { serviceAdmin: row.is_service_admin, disabled: row.disabled_at !== null } : null;
}

/**
 * SHA-256 hashes of the client's active (unrevoked) secrets, for the `x-svc-secret-key` header of
 * the deprecated managed-user routes; null when there is no such client. The caller compares in
 * constant time.
 */
export async function findActiveClientSecretHashes(knex: Knex, clientId: string): Promise<string[] | null> {
  const rows = (await knex('oauth_clients as c')
    .leftJoin('oauth_client_secrets as s', function joinActive() {
      this.on('s.client_id', '=', 'c.id').andOnNull('s.revoked_at');
    })
    .where('c.id', clientId)
    .select('s.secret_hash')) as Array<{ secret_hash: string | null }>;
  if (rows.length === 0) return null;
  return rows.flatMap((row) => (row.secret_hash === null ? [] : [row.secret_hash]));
}
