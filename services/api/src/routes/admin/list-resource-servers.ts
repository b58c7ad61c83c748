import { listResourceServers } from '@sched/db/queries/resource-servers';
import { z } from 'zod';
import { presentResourceServer, resourceServerOutput } from '../../presenters/resource-server.ts';
import { defineRoute } from '../../routing/route.ts';

export const listResourceServersRoute = defineRoute({
  method: 'GET',
  path: '/admin/resource-servers',
  summary: 'Lists the resource servers (without secrets)',
  tags: ['Admin'],
  auth: 'admin',
  response: {
    status: 200,
    description: 'Every resource server, oldest first',
    schema: z.array(resourceServerOutput),
  },
  handler: async ({ deps }) => ({
    data: (await listResourceServers(deps.stores.db.knex)).map(presentResourceServer),
  }),
});
