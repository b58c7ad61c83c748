import { recordAuditEvent } from '@sched/db/queries/audit-log';
import { deleteResourceServer } from '@sched/db/queries/resource-servers';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';

export const deleteResourceServerRoute = defineRoute({
  method: 'DELETE',
  path: '/admin/resource-servers/:id',
  summary: 'Deletes a resource server: its secret stops working at once',
  tags: ['Admin'],
  auth: 'admin',
  params: z.strictObject({ id: z.string().max(100) }),
  response: { status: 204, description: 'Deleted' },
  handler: async ({ deps, params, caller, ctx }) => {
    const deleted = await deps.stores.db.knex.transaction(async (trx) => {
      if (!(await deleteResourceServer(trx, params.id))) return false;
      await recordAuditEvent(trx, auditContextOf(caller, ctx), {
        action: 'resource_server.deleted',
        targetType: 'resource_server',
        targetId: params.id,
      });
      return true;
    });
    if (!deleted) throw new NotFoundError('Resource server not found');
    return { status: 204 };
  },
});
