import type { Knex } from 'knex';
import { insertMembership, insertOrganization, insertUser } from '../support/factories.ts';

/**
 * The owner of a new organization invites a fresh e-mail address through the API (the request
 * that sends an invitation mail). Returns the HTTP status and the address.
 */
export async function inviteToNewOrganization(knex: Knex, systemUrl: string) {
  const owner = await insertUser(knex);
  const organizationId = await insertOrganization(knex);
  await insertMembership(knex, { userId: owner.id, organizationId, role: 'OWNER', accepted: true });
  const email = `invitee-${Date.now()}-${organizationId}@example.test`;
  const response = await fetch(`${systemUrl}/v2/organizations/${organizationId}/memberships`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, role: 'member' }),
  });
  return { status: response.status, email };
}
