import { z } from 'zod';
import { auditEventOutput, auditPaginationOutput } from '../../presenters/audit-event.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { auditEventsPage, auditEventsQuery } from './query.ts';

export const listOrgAuditEventsRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/audit-events',
  summary: "The organization's audit events, newest first, with filters and cursor paging",
  description:
    'Events that belong to the organization (its memberships, invitations, roles and permissions, ' +
    'its clients). Same filters and paging as `GET /v2/admin/audit-events`. Not available to OAuth tokens.',
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
    auditEventsPage(deps.stores.db.knex, query, { organizationId: params.orgId }),
});
