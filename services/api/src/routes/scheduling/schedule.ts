import { getDefaultSchedule, replaceDefaultAvailability } from '@sched/db/queries/schedules';
import { findUserById } from '@sched/db/queries/users';
import { NotFoundError } from '@sched/kit/errors';
import { expandGroups } from '@sched/policy/availability';
import { defineRoute } from '../../routing/route.ts';
import { presentSchedule, scheduleOutput } from '../../scheduling/presenters.ts';
import { scheduleBody } from './schemas.ts';

const TAGS = ['Schedule'];

export const scheduleRoutes = [
  defineRoute({
    method: 'GET',
    path: '/me/schedule',
    summary: "The caller's default schedule (weekly availability in the schedule's time zone)",
    tags: TAGS,
    auth: 'user',
    scope: 'SCHEDULE_READ',
    response: { status: 200, description: 'The schedule', schema: scheduleOutput },
    handler: async ({ caller, deps }) => {
      const schedule = await getDefaultSchedule(deps.stores.db.knex, caller.userId);
      if (!schedule) throw new NotFoundError('You have no default schedule');
      return { data: presentSchedule(schedule) };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/me/schedule',
    summary: "Replaces the default schedule's availability; it is read in the caller's current time zone",
    tags: TAGS,
    auth: 'user',
    scope: 'SCHEDULE_WRITE',
    body: scheduleBody,
    response: { status: 200, description: 'The schedule', schema: scheduleOutput },
    handler: async ({ caller, deps, body }) => {
      const knex = deps.stores.db.knex;
      const user = await findUserById(knex, caller.userId);
      if (!user) throw new NotFoundError('User not found');
      const schedule = await replaceDefaultAvailability(
        knex,
        user.id,
        user.timeZone,
        expandGroups(body.availability),
      );
      if (!schedule) throw new NotFoundError('User not found');
      return { data: presentSchedule(schedule) };
    },
  }),
];
