import { z } from 'zod';
import { auditEventOutput, auditPaginationOutput } from '../../presenters/audit-event.ts';
import { defineRoute } from '../../routing/route.ts';
import { auditEventsPage, auditEventsQuery } from '../audit/query.ts';

export const listAuditEventsRoute = defineRoute({
  method: 'GET',
  path: '/admin/audit-events',
  summary: 'The audit log: every recorded change, newest first, with filters and cursor paging',
  description:
    'Filters combine (all must match). Paging: `take` events (default 50, at most 250); when there are ' +
    'more, `pagination.nextCursor` is the `cursor` of the next page.',
  tags: ['Admin'],
  auth: 'admin',
  query: auditEventsQuery,
  response: {
    status: 200,
    description: 'Audit events, newest first',
    schema: z.array(auditEventOutput),
    pagination: auditPaginationOutput,
  },
  handler: async ({ deps, query }) => auditEventsPage(deps.stores.db.knex, query, {}),
});
