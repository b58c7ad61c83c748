import { z } from 'zod';
import { auditEventOutput, auditPaginationOutput } from '../../presenters/audit-event.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { auditEventsPage, auditEventsQuery } from './query.ts';

/**
 * Acts of someone who shares nothing with the organization: declining its invitation. The
 * organization sees that the invitation was declined, not which account (or key, address) did it:
 * an invitation by e-mail answers alike whether the address has an account, and its decline must
 * not tell either.
 */
const ACTOR_HIDDEN_FROM_ORGANIZATION = ['invitation.declined'] as const;

export const listOrgAuditEventsRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/audit-events',
  summary: "The organization's audit events, newest first, with filters and cursor paging",
  description:
    'Events that belong to the organization (its memberships, invitations, roles and permissions, ' +
    'its clients). Same filters and paging as `GET /v2/admin/audit-events`. Not available to OAuth tokens. ' +
    'Who declined an invitation is not shown (actor ids, address and request id null; actor filters never ' +
    'match such an event).',
  tags: ['Audit'],
  auth: 'user',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: null },
  params: z.strictObject({ orgId: idParam }),
  query: auditEventsQuery,
  response: {
    status: 200,
    description: "The organization's audit events, newest first",
    schema: z.array(auditEventOutput),
    pagination: auditPaginationOutput,
  },
  handler: async ({ deps, params, query }) =>
    auditEventsPage(deps.stores.db.knex, query, {
      organizationId: params.orgId,
      actorHiddenActions: ACTOR_HIDDEN_FROM_ORGANIZATION,
    }),
});
