import type { Knex } from 'knex';
import * as identity from './0001_identity.ts';
import * as tokenStore from './0002_token_store.ts';
import * as organizations from './0003_organizations.ts';
import * as oauthClients from './0004_oauth_clients.ts';
import * as scheduling from './0005_scheduling.ts';
import * as operations from './0006_operations.ts';
import * as invitations from './0007_invitations.ts';
import * as roleNames from './0008_role_names.ts';
import * as userEmailLookup from './0009_user_email_lookup.ts';
import * as tokenOwnerIndex from './0010_token_owner_index.ts';
import * as passwordResets from './0011_password_resets.ts';
import * as bookingHostSetNull from './0012_booking_host_set_null.ts';
import * as signingKeys from './0013_signing_keys.ts';
import * as resourceServers from './0014_resource_servers.ts';
import * as auditAppendOnly from './0015_audit_append_only.ts';
import * as userDisabled from './0016_user_disabled.ts';
import * as calendarConnections from './0017_calendar_connections.ts';
import * as agentClients from './0018_agent_clients.ts';
import * as calendarVersion from './0019_calendar_version.ts';
import * as calendarConnectionServer from './0020_calendar_connection_server.ts';
import * as credentialEpoch from './0021_credential_epoch.ts';
import * as hashedTokenIds from './0022_hashed_token_ids.ts';
import * as memberRoleListMembers from './0023_member_role_list_members.ts';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration, in order. A static list instead of a directory scan: type-checked, and no
 * loader tricks for .ts files. Append new steps; never rename or reorder applied ones.
 */
export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['0001_identity', identity],
  ['0002_token_store', tokenStore],
  ['0003_organizations', organizations],
  ['0004_oauth_clients', oauthClients],
  ['0005_scheduling', scheduling],
  ['0006_operations', operations],
  ['0007_invitations', invitations],
  ['0008_role_names', roleNames],
  ['0009_user_email_lookup', userEmailLookup],
  ['0010_token_owner_index', tokenOwnerIndex],
  ['0011_password_resets', passwordResets],
  ['0012_booking_host_set_null', bookingHostSetNull],
  ['0013_signing_keys', signingKeys],
  ['0014_resource_servers', resourceServers],
  ['0015_audit_append_only', auditAppendOnly],
  ['0016_user_disabled', userDisabled],
  ['0017_calendar_connections', calendarConnections],
  ['0018_agent_clients', agentClients],
  ['0019_calendar_version', calendarVersion],
  ['0020_calendar_connection_server', calendarConnectionServer],
  ['0021_credential_epoch', credentialEpoch],
  ['0022_hashed_token_ids', hashedTokenIds],
  ['0023_member_role_list_members', memberRoleListMembers],
];
